def swap_rows(m, i, j):
    if i == j:  # a Python branch on traced indices
        return m
    row_i, row_j = m[i], m[j]
    return m.at[i].set(row_j).at[j].set(row_i)
