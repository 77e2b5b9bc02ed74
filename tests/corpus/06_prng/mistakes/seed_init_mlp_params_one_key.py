import jax
import jax.numpy as jnp


def init_mlp_params(layer_widths, key):
    # The seed tutorial's version: the same key for every layer.
    params = []
    for n_in, n_out in zip(layer_widths[:-1], layer_widths[1:]):
        params.append({
            "weights": jax.random.normal(key, (n_in, n_out)) * jnp.sqrt(2 / n_in),
            "biases": jnp.ones(n_out),
        })
    return params
