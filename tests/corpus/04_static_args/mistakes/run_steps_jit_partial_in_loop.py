from functools import partial

import jax


def affine(v, scale, shift):
    return scale * v + shift


def run_steps(x, num_steps):
    for _ in range(num_steps):
        x = jax.jit(partial(affine, scale=0.5, shift=1.0))(x)  # a new partial every iteration
    return x
