

def running_stats_update(stats, x):
    new = dict(stats)  # a copy: changing it leaves the caller's dict alone
    new["count"] = stats["count"] + 1
    delta = x - stats["mean"]
    new["mean"] = stats["mean"] + delta / new["count"]
    new["m2"] = stats["m2"] + delta * (x - new["mean"])
    return new
