import numpy as np


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    return np.mean(np.asarray(residuals) ** 2), {"predictions": predictions, "residuals": residuals}  # NumPy: not jittable
