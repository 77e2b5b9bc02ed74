import jax
import jax.numpy as jnp


def batched_predict(params, xs):
    def predict(x):
        h = x
        for layer in params[:-1]:
            h = jax.nn.relu(h @ layer["weights"] + layer["biases"])
        return h @ params[-1]["weights"] + params[-1]["biases"]

    return jnp.stack([predict(x) for x in xs])
