def swap_rows(m, i, j):
    m = m.at[i].set(m[j])
    m = m.at[j].set(m[i])
    return m
