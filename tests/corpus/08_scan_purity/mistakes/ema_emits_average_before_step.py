from jax import lax


def ema(xs, decay):
    def step(average, x):
        new = decay * average + (1 - decay) * x
        return new, average  # the output is the carry as it came in

    _, averages = lax.scan(step, xs[0], xs)
    return averages
