import jax.numpy as jnp
from jax import lax


def rnn_forward(params, xs, h0):
    def step(h, x):
        h_new = jnp.tanh(params["W_h"] @ h + params["W_x"] @ x + params["b"])
        return h_new, h  # outputs the old state: hs = h0 ... h_(T-1)

    return lax.scan(step, h0, xs)
