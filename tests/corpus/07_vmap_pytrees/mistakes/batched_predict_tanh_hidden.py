import jax
import jax.numpy as jnp


def predict(params, x):
    activations = x
    for layer in params[:-1]:
        activations = jnp.tanh(jnp.dot(activations, layer["weights"]) + layer["biases"])  # tanh hidden units
    final = params[-1]
    return jnp.dot(activations, final["weights"]) + final["biases"]


batched_predict = jax.vmap(predict, in_axes=(None, 0))
