import jax


def batched_predict(params, xs):
    def predict(params, x):
        h = x
        for layer in params[:-1]:
            h = jax.nn.relu(h @ layer["weights"] + layer["biases"])
        return h @ params[-1]["weights"] + params[-1]["biases"]

    return jax.vmap(predict)(params, xs)  # in_axes=0 maps params too
