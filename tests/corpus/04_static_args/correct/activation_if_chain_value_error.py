from functools import partial

import jax
import jax.numpy as jnp


def _get_activation(name):
    if name == "relu":
        return jax.nn.relu
    elif name == "tanh":
        return jnp.tanh
    elif name == "sigmoid":
        return jax.nn.sigmoid
    else:
        raise ValueError(f"Activation function {name} is not supported")


@partial(jax.jit, static_argnames="name")
def activation(x, name):
    return _get_activation(name)(x)
