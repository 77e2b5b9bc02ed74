import jax


def directional_derivative(f, x, v):
    _, tangent_out = jax.jvp(f, (x,), (v,))
    return tangent_out


def vector_jacobian_product(f, x, u):
    _, pullback = jax.vjp(f, x)
    (cotangent,) = pullback(u)
    return cotangent
