import jax


def run_steps(x, num_steps):
    for _ in range(num_steps):
        x = jax.jit(lambda v: 0.5 * v + 1.0)(x)  # a new function every iteration
    return x
