import jax
import jax.numpy as jnp


def init_mlp_params(layer_widths, key):
    keys = jax.random.split(key, len(layer_widths) - 1)
    params = []
    for k, n_in, n_out in zip(keys, layer_widths[:-1], layer_widths[1:]):
        std = jnp.sqrt(2.0 / (n_in + n_out))  # Glorot (Xavier) normal
        params.append({"weights": std * jax.random.normal(k, (n_in, n_out)), "biases": jnp.ones(n_out)})
    return params
