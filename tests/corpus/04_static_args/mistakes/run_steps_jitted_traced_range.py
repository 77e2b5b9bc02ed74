import jax


@jax.jit
def step(x):
    return 0.5 * x + 1.0


@jax.jit  # num_steps is traced: range(num_steps) needs a Python int
def run_steps(x, num_steps):
    for _ in range(num_steps):
        x = step(x)
    return x
