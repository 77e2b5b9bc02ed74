def normalize(x, axis):  # correct, but not a jitted function
    return x / x.sum(axis=axis, keepdims=True)
