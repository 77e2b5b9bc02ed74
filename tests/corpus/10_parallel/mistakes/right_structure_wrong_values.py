# Jittable, correctly structured code that computes the wrong values: it must fail every property.
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def convolve(x, w):
    return x[:-2] * w[0] + x[1:-1] * w[1] + x[2:] * w[0]  # w[0] where w[2] belongs


def convolve_on_devices(xs, ws):
    return jax.pmap(lambda x, w: x[:-2] * w[0] + x[1:-1] * w[1])(xs, ws[:, ::-1])


def shard_rows(x):
    mesh = jax.make_mesh((jax.device_count(),), ("data",))
    return jax.device_put(x * 2, NamedSharding(mesh, P("data")))


def global_mean(x):
    mesh = jax.make_mesh((jax.device_count(),), ("data",))
    return jax.shard_map(lambda b: lax.psum(jnp.max(b), "data"), mesh=mesh, in_specs=P("data"), out_specs=P())(x)


def data_parallel_step(params, xs, ys, learning_rate):
    d = jax.device_count()

    def step(p, x, y):
        grads = lax.pmean(jax.grad(lambda q: jnp.mean(q["w"] * x + q["b"] - y))(p), "devices")
        return jax.tree.map(lambda a, g: a + learning_rate * g, p, grads), lax.pmean(jnp.mean(x), "devices")

    new, loss = jax.pmap(step, axis_name="devices", in_axes=(None, 0, 0))(params, xs.reshape(d, -1), ys.reshape(d, -1))
    return jax.tree.map(lambda a: a[0], new), loss[0]
