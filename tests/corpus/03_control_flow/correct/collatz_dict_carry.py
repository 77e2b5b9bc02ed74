"""collatz_steps: a dict carry, lax.cond in the body, `n > 1` as the loop condition."""

import jax.numpy as jnp
from jax import lax


def collatz_steps(n):
    def body(state):
        m = state["n"]
        m = lax.cond(m % 2 == 0, lambda m: m // 2, lambda m: 3 * m + 1, m)
        return {"n": m, "steps": state["steps"] + 1}

    state = lax.while_loop(lambda s: s["n"] > 1, body, {"n": jnp.int32(n), "steps": jnp.int32(0)})
    return state["steps"]
