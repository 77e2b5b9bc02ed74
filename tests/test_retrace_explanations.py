"""Why JAX traced again, as the student reads it: only causes of a trace beyond the expected ones.

A function JAX has never seen is its first trace, expected, unless JAX has
seen another defined on the same line (a function made again at every call).
A function traced inside another's trace (a loop body) is traced again with
it: the outer function's cause is the one to tell.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from autograder.catalog import messages
from autograder.check.retrace_explanations import causes, explain
from autograder.child.trace_counting import count_traces

FIRST_TRACE = """TRACING CACHE MISS at <cell 2>:10 (<module>):
  never seen function:
    sum_init id=140718610465152 defined at <cell 2>:6"""

MADE_AGAIN = """TRACING CACHE MISS at <cell 2>:16:11 (g):
  never seen function:
    <lambda> id=140718563943392 defined at <cell 2>:16
  but seen another function defined on the same line; maybe the function is
  being re-defined repeatedly, preventing caching?"""


def test_a_functions_first_trace_is_no_cause():
    assert causes([FIRST_TRACE]) == []
    assert explain([FIRST_TRACE]) == ""


def test_a_function_made_again_at_every_call_is_a_cause():
    (cause,) = causes([FIRST_TRACE, MADE_AGAIN])
    assert (cause.kind, cause.subject, cause.change) == ("new_function", "<lambda>", "16")


def _sum_init(x, num):
    return lax.fori_loop(0, num, lambda i, total: total + x[i], jnp.zeros((), x.dtype))


def test_a_static_argument_is_the_cause_not_the_loop_body_it_makes_again():
    sum_init = jax.jit(_sum_init, static_argnums=1)
    x = jnp.ones(8, jnp.float32)
    counted = count_traces(sum_init, [((x, n), {}) for n in (0, 3, 5)])
    assert counted.traces == 3
    said = explain(counted.explanations)
    assert "static" in said and "<lambda>" not in said and "`_sum_init`" not in said, said
    assert messages.text("retrace.position", position=2) in said
