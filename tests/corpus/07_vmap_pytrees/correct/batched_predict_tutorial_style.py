import jax
import jax.numpy as jnp


def predict(params, image):
    activations = image
    for layer in params[:-1]:
        activations = jax.nn.relu(jnp.dot(activations, layer["weights"]) + layer["biases"])
    # The raw output of the last layer, no log-softmax.
    return jnp.dot(activations, params[-1]["weights"]) + params[-1]["biases"]


batched_predict = jax.vmap(predict, in_axes=(None, 0))
