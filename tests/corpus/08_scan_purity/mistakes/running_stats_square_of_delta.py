def running_stats_update(stats, x):
    count = stats["count"] + 1.0
    mean = stats["mean"] + (x - stats["mean"]) / count
    m2 = stats["m2"] + (x - stats["mean"]) ** 2
    return {"count": count, "mean": mean, "m2": m2}
