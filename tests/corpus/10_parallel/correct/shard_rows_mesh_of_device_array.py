import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P


def shard_rows(x):
    # The sharding tutorials' way to build the mesh: the device list as a NumPy array, one axis named "data".
    mesh = Mesh(np.array(jax.devices()), ("data",))
    return jax.device_put(x, NamedSharding(mesh, P("data")))
