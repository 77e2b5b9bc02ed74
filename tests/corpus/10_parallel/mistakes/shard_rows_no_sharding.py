import jax


def shard_rows(x):
    return jax.device_put(x)  # no sharding: one device holds every row
