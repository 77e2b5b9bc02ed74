import jax
import jax.numpy as jnp


def newton_minimize(f, x0, num_steps):
    lr = 0.1  # a learning rate kept from a gradient-descent loop
    df = jax.grad(f)
    d2f = jax.grad(df)

    def body(carry):
        i, x = carry
        direction = -df(x) / d2f(x)
        return i + 1, x + lr * direction

    _, x = jax.lax.while_loop(lambda c: c[0] < num_steps, body, (jnp.int32(0), x0))
    return x
