import jax
import jax.numpy as jnp


def predict(params, x):
    h = x
    for layer in params[:-1]:
        h = jax.nn.relu(h @ layer["weights"] + layer["biases"])
    logits = h @ params[-1]["weights"] + params[-1]["biases"]
    return jax.nn.sigmoid(logits)


def batched_predict(params, xs):
    return jax.vmap(predict, in_axes=(None, 0))(params, xs)
