import jax


def vector_jacobian_product(f, x, u):
    _, pullback = jax.vjp(f, x)
    return pullback(u)  # the pullback returns one cotangent per primal argument, in a tuple
