"""08_scan_purity's harnesses (see child/harnesses.py): running_stats_update called twice on one dict,
and as the body of a lax.scan.

Found by name (child/harnesses_<assignment>.py) and run next to the student's code, in the sandbox
child and in the student package; they decide nothing: the suite compares what comes back with
references it computes itself.
"""

from __future__ import annotations

from typing import Callable

from autograder.child.harness_types import Harness


def twice(running_stats_update: Callable) -> Callable:
    """The same dict passed to two calls: both results, and the dict as it was after the first call."""
    import jax
    import jax.numpy as jnp

    def call(stats, x):
        first = jax.tree.map(jnp.asarray, running_stats_update(stats, x))  # a copy later calls cannot change
        after = dict(stats)
        second = running_stats_update(stats, x)
        return first, second, after

    return call


def as_scan_body(running_stats_update: Callable) -> Callable:
    """The stats after `lax.scan` over xs with the function as its body, from zero stats."""
    import jax.numpy as jnp
    from jax import lax

    def call(xs):
        zero = jnp.zeros((), xs.dtype)
        stats, _ = lax.scan(lambda stats, x: (running_stats_update(stats, x), None),
                            {"count": zero, "mean": zero, "m2": zero}, xs)
        return stats

    return call


HARNESSES: dict[str, Harness] = {
    "twice": Harness(frozenset({"running_stats_update"}), twice, "{function}({arguments})"),
    "as_scan_body": Harness(frozenset({"running_stats_update"}), as_scan_body,
                            ('lax.scan(lambda stats, x: ({function}(stats, x), None), '
                             '{{"count": 0., "mean": 0., "m2": 0.}}, {arguments})')),
}
