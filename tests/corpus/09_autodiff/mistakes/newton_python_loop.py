import jax


def newton_minimize(f, x0, num_steps):
    df = jax.grad(f)
    d2f = jax.grad(df)
    x = x0
    for _ in range(num_steps):  # needs a Python int; unrolled under jit
        x = x - df(x) / d2f(x)
    return x
