from functools import partial

import jax


@partial(jax.jit, static_argnames="axis")
def normalize(x, axis):
    return x / x.sum(axis=axis)  # the summed axis is dropped: wrong broadcasting
