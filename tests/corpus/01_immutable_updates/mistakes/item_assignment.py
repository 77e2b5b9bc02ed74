def set_element(x, index, value):
    x[index] = value  # JAX arrays are immutable
    return x
