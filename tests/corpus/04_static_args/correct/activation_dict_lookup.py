from functools import partial

import jax
import jax.numpy as jnp

ACTIVATIONS = {
    "relu": lambda x: jnp.maximum(x, 0.0),
    "tanh": jnp.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + jnp.exp(-x)),
}


@partial(jax.jit, static_argnames=("name",))
def activation(x, name):
    if name not in ACTIVATIONS:
        raise ValueError(f"activation {name!r} is not one of {sorted(ACTIVATIONS)}")
    return ACTIVATIONS[name](x)
