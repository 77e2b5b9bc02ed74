# Jitted objects with the right static arguments and trace counts, computing the wrong thing:
# "jitted object", "traces once per distinct n", "axis static by name" give nothing for them.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def power(x, n):
    return x * n


@partial(jax.jit, static_argnames="axis")
def normalize(x, axis):
    return x / x.shape[axis]


@partial(jax.jit, static_argnames="name")
def activation(x, name):
    if name not in ("relu", "tanh", "sigmoid"):
        raise ValueError(f"unknown activation name: {name!r}")
    return x


@jax.jit
def step(x):
    return x


def run_steps(x, num_steps):
    for _ in range(num_steps):
        x = step(x)
    return x
