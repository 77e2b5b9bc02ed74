def sum_of_positive_numbers(x):
    total = 0.0
    for value in x:
        if value > 0:  # a Python branch on array values
            total = total + value
    return total
