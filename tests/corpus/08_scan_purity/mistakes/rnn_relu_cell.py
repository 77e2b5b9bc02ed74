import jax
from jax import lax


def rnn_forward(params, xs, h0):
    def cell(h, x):
        h = jax.nn.relu(params["W_h"] @ h + params["W_x"] @ x + params["b"])  # relu, as in an MLP's hidden layers
        return h, h

    return lax.scan(cell, h0, xs)
