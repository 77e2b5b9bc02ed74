import jax


def _step(x):
    return 0.5 * x + 1.0


# Jitted once, at module level, without a decorator.
step = jax.jit(_step)


def run_steps(x, num_steps):
    for _ in range(num_steps):
        x = step(x)
    return x
