"""init_mlp_params with an explicit index loop and float32 scale; dropout via lax-free arithmetic."""

import jax
import jax.numpy as jnp
import numpy as np


def init_mlp_params(layer_widths, key):
    n_layers = len(layer_widths) - 1
    layer_keys = jax.random.split(key, num=n_layers)
    params = []
    for i in range(n_layers):
        n_in, n_out = layer_widths[i], layer_widths[i + 1]
        scale = np.float32(np.sqrt(2.0 / n_in))
        weights = scale * jax.random.normal(layer_keys[i], (n_in, n_out), dtype=jnp.float32)
        params.append(dict(weights=weights, biases=jnp.ones(n_out)))
    return params


def dropout(key, x, rate):
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return keep.astype(x.dtype) * (x / (1 - rate))
