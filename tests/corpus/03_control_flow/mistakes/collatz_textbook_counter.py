def collatz_steps(n):
    # The textbook loop: a Python counter and a Python while on the value.
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps
