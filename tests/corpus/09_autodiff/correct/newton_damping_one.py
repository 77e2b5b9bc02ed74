import jax
from jax import lax


def newton_minimize(f, x0, num_steps, damping=1.0):
    # The damped Newton update with the full step (damping 1): the exercise's iteration.
    grad_f = jax.grad(f)
    hess_f = jax.grad(grad_f)

    def step(_, x):
        return x - damping * grad_f(x) / hess_f(x)

    return lax.fori_loop(0, num_steps, step, x0)
