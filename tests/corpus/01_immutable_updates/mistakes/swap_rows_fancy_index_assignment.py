def swap_rows(m, i, j):
    # NumPy's idiom for exchanging two rows: assign the rows in the other order through a list index.
    m = m.copy()
    m[[i, j]] = m[[j, i]]
    return m
