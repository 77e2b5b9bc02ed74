import jax
import jax.numpy as jnp


def init_mlp_params(layer_widths, key):
    # No key is reused, but this is not the recipe: key, subkey = split(key) per layer.
    params = []
    for n_in, n_out in zip(layer_widths[:-1], layer_widths[1:]):
        key, subkey = jax.random.split(key)
        params.append({
            "weights": jax.random.normal(subkey, (n_in, n_out)) * jnp.sqrt(2 / n_in),
            "biases": jnp.ones(n_out),
        })
    return params
