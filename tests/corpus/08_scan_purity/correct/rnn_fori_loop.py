import jax.numpy as jnp
from jax import lax


def rnn_forward(params, xs, h0):
    # lax.fori_loop where lax.scan is not required: write each state into a preallocated hs.
    def body(t, carry):
        h, hs = carry
        h = jnp.tanh(params["W_h"] @ h + params["W_x"] @ xs[t] + params["b"])
        return h, hs.at[t].set(h)

    hs = jnp.zeros((xs.shape[0], h0.shape[0]), h0.dtype)
    return lax.fori_loop(0, xs.shape[0], body, (h0, hs))
