from functools import partial

import jax


@jax.jit
def step(x):
    return 0.5 * x + 1.0


@partial(jax.jit, static_argnums=1)  # one unrolled program per num_steps
def run_steps(x, num_steps):
    for _ in range(num_steps):
        x = step(x)
    return x
