import jax.numpy as jnp


def safe_norm(x):
    # The double-where guard: a finite gradient at 0, but no custom rule.
    squared = jnp.sum(x ** 2)
    safe = jnp.where(squared > 0, squared, 1.0)
    return jnp.where(squared > 0, jnp.sqrt(safe), 0.0)
