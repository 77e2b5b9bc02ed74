import jax.numpy as jnp


def collatz_steps(n):
    steps = jnp.zeros((), jnp.int32)
    while n != 1:
        n = jnp.where(n % 2 == 0, n // 2, 3 * n + 1)
        steps = steps + 1
    return steps
