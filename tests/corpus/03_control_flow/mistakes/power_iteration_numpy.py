import numpy as np


def power_iteration(a, num_iters):
    # Power iteration as a linear-algebra course writes it, in NumPy.
    a = np.asarray(a)
    v = np.ones(a.shape[0]) / np.sqrt(a.shape[0])
    for _ in range(num_iters):
        w = a @ v
        v = w / np.linalg.norm(w)
    return v
