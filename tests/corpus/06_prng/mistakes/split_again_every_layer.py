import jax
import jax.numpy as jnp


def init_mlp_params(layer_widths, key):
    params = []
    for i, (n_in, n_out) in enumerate(zip(layer_widths[:-1], layer_widths[1:])):
        keys = jax.random.split(key, len(layer_widths) - 1)  # the parent key is split again for every layer
        params.append({
            "weights": jax.random.normal(keys[i], (n_in, n_out)) * jnp.sqrt(2 / n_in),
            "biases": jnp.ones(n_out),
        })
    return params
