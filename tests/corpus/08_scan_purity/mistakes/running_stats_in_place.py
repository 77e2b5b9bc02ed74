

def running_stats_update(stats, x):
    # Changes the caller's dict: right values, but a side effect.
    stats["count"] += 1
    delta = x - stats["mean"]
    stats["mean"] += delta / stats["count"]
    stats["m2"] += delta * (x - stats["mean"])
    return stats
