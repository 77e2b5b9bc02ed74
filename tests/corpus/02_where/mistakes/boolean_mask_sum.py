def sum_of_positive_numbers(x):
    return x[x > 0].sum()  # boolean-mask indexing has a data-dependent shape
