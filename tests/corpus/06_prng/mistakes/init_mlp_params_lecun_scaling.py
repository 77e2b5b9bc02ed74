import jax
import jax.numpy as jnp


def init_mlp_params(layer_widths, key):
    keys = jax.random.split(key, len(layer_widths) - 1)
    params = []
    for k, (n_in, n_out) in zip(keys, zip(layer_widths[:-1], layer_widths[1:])):
        # LeCun normal initialisation: variance 1 / n_in.
        params.append({"weights": jax.random.normal(k, (n_in, n_out)) / jnp.sqrt(n_in),
                       "biases": jnp.ones(n_out)})
    return params
