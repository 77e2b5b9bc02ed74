from jax import lax


def ema(xs, decay):
    decay = float(decay)  # needs a concrete value: fails with decay traced

    def step(average, x):
        average = decay * average + (1 - decay) * x
        return average, average

    _, averages = lax.scan(step, xs[0], xs)
    return averages
