from jax import lax


def ema(xs, decay):
    def step(average, x):
        average = decay * average + (1 - decay) * x
        return average, average

    # Scanning over every entry from m = xs[0]: the first step gives xs[0] again.
    _, averages = lax.scan(step, xs[0], xs)
    return averages
