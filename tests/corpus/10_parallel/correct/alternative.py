# A different but valid solution of every function: it must score full marks.
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def _mesh():
    return jax.make_mesh((jax.device_count(),), ("data",))


def convolve(x, w):
    return jnp.convolve(x, w[::-1], mode="valid")


def convolve_on_devices(xs, ws):
    # shard_map instead of pmap: each device convolves its own row.
    rows = NamedSharding(_mesh(), P("data"))
    return jax.shard_map(lambda x, w: convolve(x[0], w[0])[None], mesh=_mesh(),
                         in_specs=(P("data"), P("data")), out_specs=P("data"))(
        jax.device_put(xs, rows), jax.device_put(ws, rows))


def shard_rows(x):
    return jax.device_put(x, NamedSharding(_mesh(), P("data", None)))


def global_mean(x):
    # pmean of equal-sized shards' means is the mean.
    return jax.shard_map(lambda b: lax.pmean(jnp.mean(b), "data"), mesh=_mesh(), in_specs=P("data"),
                         out_specs=P())(x)


def data_parallel_step(params, xs, ys, learning_rate):
    mesh = _mesh()

    def local_step(p, x, y):
        # The loss of the whole batch is the pmean of the shards' losses; its gradient with respect to the
        # replicated params is already summed over the devices by shard_map's autodiff.
        loss_fn = lambda q: lax.pmean(jnp.mean((q["w"] * x + q["b"] - y) ** 2), "data")  # noqa: E731
        loss, grads = jax.value_and_grad(loss_fn)(p)
        return jax.tree.map(lambda a, g: a - learning_rate * g, p, grads), loss

    rows = NamedSharding(mesh, P("data"))
    return jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=(P(), P()))(
        params, jax.device_put(xs, rows), jax.device_put(ys, rows))
