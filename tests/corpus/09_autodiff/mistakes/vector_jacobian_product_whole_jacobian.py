import jax


def vector_jacobian_product(f, x, u):
    return u @ jax.jacrev(f)(x)  # right values, but the m x n Jacobian is built first
