import jax


def run_steps(x, num_steps):
    step = jax.jit(lambda v: 0.5 * v + 1.0)  # jitted once per call of run_steps, outside the loop
    for _ in range(num_steps):
        x = step(x)
    return x
