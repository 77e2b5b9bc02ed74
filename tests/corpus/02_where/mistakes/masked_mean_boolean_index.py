def masked_mean(x, mask):
    return x[mask].mean()  # boolean indexing: not jittable, NaN on an empty mask
