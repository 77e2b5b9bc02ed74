import jax


@jax.jit
def step(x):
    return 0.5 * x + 1.0


def run_steps(x, num_steps):
    for _ in range(num_steps):
        step(x)  # the new value is thrown away: JAX arrays are not updated in place
    return x
