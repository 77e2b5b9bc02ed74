import jax
import jax.numpy as jnp


def init_mlp_params(layer_widths, key):
    keys = jax.random.split(key, len(layer_widths) - 1)
    params = []
    for k, (n_in, n_out) in zip(keys, zip(layer_widths[:-1], layer_widths[1:])):
        params.append({"weights": jax.random.normal(k, (n_in, n_out)) * jnp.sqrt(2 / n_in),
                       "biases": jnp.zeros(n_out)})  # biases started at zero
    return params
