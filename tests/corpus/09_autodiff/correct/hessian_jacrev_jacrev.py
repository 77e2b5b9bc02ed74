import jax


def hessian(f):
    # Reverse over reverse: slower than forward over reverse, with the same values.
    return jax.jit(jax.jacrev(jax.jacrev(f)))
