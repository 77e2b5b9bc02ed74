import jax
from jax import lax


def newton_minimize(f, x0, num_steps):
    df = jax.grad(f)
    d2f = jax.grad(df)

    def body(state):
        i, x = state
        return i + 1, x - df(x) / d2f(x)

    _, x = lax.while_loop(lambda state: state[0] < num_steps, body, (0, x0))
    return x
