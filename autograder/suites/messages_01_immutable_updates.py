"""01_immutable_updates: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {
    "01_immutable_updates.set_diagonal.unrolled_fix": "Update the whole diagonal at once: m.at[idx, idx].set(values) with idx = jnp.arange(n).",
    "01_immutable_updates.histogram.duplicates": "`.at[indices].set(1)` writes 1 once per bin, so repeated indices are lost. Use `.at[indices].add(1)`, which adds once per occurrence.",
    "01_immutable_updates.histogram.dtype": "the counts must be int32: start from `jnp.zeros(num_bins, dtype=jnp.int32)`.",
    "01_immutable_updates.swap_rows.sequential": "if you write row i first and then read it to fill row j, you read the already-updated row. Read both rows first, or update both in one step: `m.at[jnp.array([i, j])].set(m[jnp.array([j, i])])`.",
    "01_immutable_updates.set_element.dtype": "`x.at[index].set(value)` keeps the dtype of `x`; building the result with arithmetic or `jnp.where` promotes it to the value's dtype.",
}

IDEAS: dict[str, str] = {
    "01_immutable_updates.set_diagonal.unrolled_fix": "A Python loop over the diagonal is unrolled while tracing, one update per entry. Update every diagonal entry in one functional update, indexing rows and columns with the same array of positions.",
    "01_immutable_updates.histogram.duplicates": "a functional `set` writes each bin once however often its index repeats, so repeated indices are lost. Accumulate instead: the functional update that adds once per occurrence.",
    "01_immutable_updates.histogram.dtype": "the counts must be int32: start the histogram from an integer array of zeros.",
    "01_immutable_updates.swap_rows.sequential": "writing row i first and then reading it to fill row j reads the already-updated row. Read both rows before writing anything, or write both in one functional update.",
    "01_immutable_updates.set_element.dtype": "a functional update through `x.at[...]` keeps the dtype of x; arithmetic or `jnp.where` promotes the result to the dtype of the value.",
}

APIS: dict[str, tuple[str, ...]] = {
    "01_immutable_updates.set_diagonal.unrolled_fix": ("jax.numpy.ndarray.at", "jax.numpy.arange"),
    "01_immutable_updates.histogram.duplicates": ("jax.numpy.ndarray.at",),
    "01_immutable_updates.histogram.dtype": ("jax.numpy.zeros(dtype=...)",),
    "01_immutable_updates.swap_rows.sequential": ("jax.numpy.ndarray.at",),
    "01_immutable_updates.set_element.dtype": ("jax.numpy.ndarray.at",),
}
