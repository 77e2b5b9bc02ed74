import jax
import jax.numpy as jnp


def activation(x, name):  # correct, but not a jitted function
    if name == "relu":
        return jax.nn.relu(x)
    if name == "tanh":
        return jnp.tanh(x)
    if name == "sigmoid":
        return jax.nn.sigmoid(x)
    raise ValueError(f"unknown activation name: {name!r}")
