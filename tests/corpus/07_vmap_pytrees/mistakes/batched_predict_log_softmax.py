import jax
import jax.numpy as jnp
from jax.scipy.special import logsumexp


def predict(params, image):
    activations = image
    for layer in params[:-1]:
        activations = jax.nn.relu(jnp.dot(activations, layer["weights"]) + layer["biases"])
    logits = jnp.dot(activations, params[-1]["weights"]) + params[-1]["biases"]
    # The classifier tutorial's last line: log-probabilities instead of the raw output.
    return logits - logsumexp(logits)


batched_predict = jax.vmap(predict, in_axes=(None, 0))
