import jax


def directional_derivative(f, x, v):
    # jax.jvp returns the pair (f(x), J @ v); the whole pair is returned.
    return jax.jvp(f, (x,), (v,))
