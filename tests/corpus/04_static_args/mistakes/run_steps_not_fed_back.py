import jax


@jax.jit
def step(x):
    return 0.5 * x + 1.0


def run_steps(x, num_steps):
    out = x
    for _ in range(num_steps):
        out = step(x)
    return out
