from functools import partial

import jax
import jax.numpy as jnp

# A table of activations by name, checked with an assert before the lookup.
_ACTIVATIONS = {"relu": jax.nn.relu, "tanh": jnp.tanh, "sigmoid": jax.nn.sigmoid}


@partial(jax.jit, static_argnames="name")
def activation(x, name):
    assert name in _ACTIVATIONS, f"unknown activation {name}"
    return _ACTIVATIONS[name](x)
