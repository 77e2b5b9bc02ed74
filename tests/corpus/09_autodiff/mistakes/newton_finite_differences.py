from jax import lax

H = 1e-2


def newton_minimize(f, x0, num_steps):
    def first(x):
        return (f(x + H) - f(x - H)) / (2 * H)

    def second(x):
        return (f(x + H) - 2 * f(x) + f(x - H)) / H ** 2

    return lax.fori_loop(0, num_steps, lambda i, x: x - first(x) / second(x), x0)
