def convolve(x, w):
    # Three shifted slices, each stopping one entry too early.
    return x[:-3] * w[0] + x[1:-2] * w[1] + x[2:-1] * w[2]
