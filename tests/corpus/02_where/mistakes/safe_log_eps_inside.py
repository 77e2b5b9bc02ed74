import jax.numpy as jnp

EPS = 1e-8


def safe_log(x):
    return jnp.log(x + EPS)  # an eps inside the log, as cross-entropy code keeps log(0) finite
