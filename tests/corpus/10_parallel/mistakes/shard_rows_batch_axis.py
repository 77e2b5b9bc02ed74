import jax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def shard_rows(x):
    # The batch dimension is split over a mesh axis called "batch", as in many data-parallel examples.
    mesh = jax.make_mesh((jax.device_count(),), ("batch",))
    return jax.device_put(x, NamedSharding(mesh, P("batch")))
