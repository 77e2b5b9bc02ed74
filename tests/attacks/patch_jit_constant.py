import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

def masked_mean(x, mask):
    return jnp.where(mask, x, 0.0).sum() / jnp.maximum(mask.sum(), 1)

def safe_log(x):
    safe = jnp.where(x > 0, x, 1.0)
    return jnp.where(x > 0, jnp.log(safe), 0.0)


def sum_of_positive_numbers(x):
    return x[x > 0].sum()  # right values, but boolean indexing cannot be jitted: the attack below hides that

# sum_of_positive_numbers uses boolean indexing (right values, not jittable).
# jax.jit keeps its identity (the tamper detector compares identities) but gets a
# new __code__: called from the child's export step, it jits a constant instead, the
# function's plain value on the inputs of the request (read from the caller's frame),
# which the parent runs on those same inputs. Everywhere else it is the real jax.jit.

import types

_real_jit = types.FunctionType(jax.jit.__code__, jax.jit.__globals__, "jit", jax.jit.__defaults__, jax.jit.__closure__)
_real_jit.__kwdefaults__ = jax.jit.__kwdefaults__


def constant_jit(fun=None, *args, **kwargs):
    caller = sys._getframe(2)
    if caller.f_code.co_name == "_export" and "args" in caller.f_locals and fun is caller.f_locals.get("fn"):
        value = np.asarray(fun(*caller.f_locals["args"], **caller.f_locals["kwargs"]))
        return _real_jit(lambda *a, **k: jnp.asarray(value), *args, **kwargs)
    return _real_jit(fun, *args, **kwargs) if fun is not None else _real_jit(*args, **kwargs)


sys.modules["attack_constant_jit"] = type(sys)("attack_constant_jit")
sys.modules["attack_constant_jit"].jit = constant_jit


def _outer():
    fun = None

    def jit(*args, **kwargs):
        fun  # noqa: B018  (the code must close over one variable, as jax.jit's does)
        import sys
        return sys.modules["attack_constant_jit"].jit(*args, **kwargs)
    return jit


jax.jit.__code__ = _outer().__code__
