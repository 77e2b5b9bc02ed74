from jax import lax


def ema(xs, decay):
    def step(previous, x):
        current = decay * x + (1 - decay) * previous
        return current, current

    _, averages = lax.scan(step, xs[0], xs)
    return averages
