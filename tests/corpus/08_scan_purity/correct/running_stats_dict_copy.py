import jax
import jax.numpy as jnp
from jax import lax


# The notebook's setup cell defines these; a .py submission carries its own copy.
def grader_update_twice(stats, x):
    """Call running_stats_update twice with the same dict: both results, and the dict after the first call."""
    first = jax.tree.map(jnp.asarray, running_stats_update(stats, x))  # a copy that later calls cannot change
    after = dict(stats)
    second = running_stats_update(stats, x)
    return first, second, after


def grader_scan_running_stats(xs):
    """The stats after lax.scan over xs with running_stats_update as the body, from zero stats."""
    zero = jnp.zeros((), xs.dtype)

    def body(stats, x):
        return running_stats_update(stats, x), None

    stats, _ = lax.scan(body, {"count": zero, "mean": zero, "m2": zero}, xs)
    return stats


def running_stats_update(stats, x):
    new = dict(stats)  # a copy: changing it leaves the caller's dict alone
    new["count"] = stats["count"] + 1
    delta = x - stats["mean"]
    new["mean"] = stats["mean"] + delta / new["count"]
    new["m2"] = stats["m2"] + delta * (x - new["mean"])
    return new
