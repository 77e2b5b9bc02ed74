# The required lax construct, traced once and loop-free, but the wrong values:
# "compiles once", "uses lax.cond/fori_loop/while_loop", "no Python loop" give nothing for it.
import jax.numpy as jnp
from jax import lax


def square(x, negate):
    return lax.cond(negate, lambda v: -v, lambda v: v, x)  # x, not x ** 2


def sum_init(x, num):
    return lax.fori_loop(0, num, lambda i, total: total + 1.0, jnp.zeros((), x.dtype))  # counts instead of sums


def power_iteration(a, num_iters):
    start = jnp.ones(a.shape[0], a.dtype) / jnp.sqrt(a.shape[0])
    return lax.fori_loop(0, num_iters, lambda i, v: v, start)  # never multiplies by a


def collatz_steps(n):
    def halve(state):
        value, steps = state
        return value // 2, steps + 1

    return lax.while_loop(lambda state: state[0] > 1, halve, (n, jnp.zeros((), jnp.int32)))[1]  # halves odd numbers too
