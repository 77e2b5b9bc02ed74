import numpy as np


def generate_linear_samples(key, intercept, slope, noise_scale, n_samples):
    # NumPy's global random state, as in scikit-learn style data generation; the key is ignored.
    x = np.random.uniform(size=n_samples)
    y = slope * x + intercept + noise_scale * np.random.normal(size=n_samples)
    return x, y
