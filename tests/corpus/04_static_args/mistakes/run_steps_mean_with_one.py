import jax


@jax.jit
def step(x):
    return (x + 1.0) / 2.0


def run_steps(x, num_steps):
    for _ in range(num_steps):
        x = step(x)
    return x
