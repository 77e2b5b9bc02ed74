import jax
import jax.numpy as jnp


def init_mlp_params(layer_widths, key):
    # A fresh jax.random.key(0) per layer: no reuse is detected, but the key argument is ignored.
    return [
        {"weights": jax.random.normal(jax.random.key(0), (n_in, n_out)) * jnp.sqrt(2 / n_in),
         "biases": jnp.ones(n_out)}
        for n_in, n_out in zip(layer_widths[:-1], layer_widths[1:])
    ]
