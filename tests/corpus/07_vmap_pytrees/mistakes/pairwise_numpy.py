import numpy as np


def pairwise_distances(xs, ys):
    xs, ys = np.asarray(xs), np.asarray(ys)
    return np.sqrt(((xs[:, None, :] - ys[None, :, :]) ** 2).sum(-1))
