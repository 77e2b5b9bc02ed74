"""01_immutable_updates: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {
    "01_immutable_updates.set_diagonal.unrolled_fix": "Update the whole diagonal at once: m.at[idx, idx].set(values) with idx = jnp.arange(n).",
    "01_immutable_updates.histogram.dtype": "the counts must be int32: start from `jnp.zeros(num_bins, dtype=jnp.int32)`.",
    "01_immutable_updates.set_element.dtype": "`x.at[index].set(value)` keeps the dtype of `x`; building the result with arithmetic or `jnp.where` promotes it to the value's dtype.",
    "01_immutable_updates.set_element.mistake.added": "The values are exactly those of x with `value` added to the entry at `index`: the update adds where it should replace. Use the functional update that sets the entry (`.set`, not `.add`).",
    "01_immutable_updates.set_diagonal.mistake.added": "The values are exactly those of m with the values added to its diagonal: the update adds where it should replace. Set the diagonal entries (`.set`, not `.add`), and leave the rest of m as it is.",
    "01_immutable_updates.histogram.mistake.set_one": "Every bin that occurs holds exactly 1, whatever the number of its occurrences: the update writes 1 once per bin instead of counting. A functional `set` of repeated indices keeps one write per bin; `.add` accumulates every occurrence.",
    "01_immutable_updates.swap_rows.mistake.overwritten": "Both rows now hold the old row j: row i was overwritten first, and row j was then copied from the changed row i. Read both rows from the original m before writing either, or write them in one update.",
    "01_immutable_updates.set_element.mistake.unchanged": "The values are exactly x as it was passed in: the entry at `index` was never changed. A functional update `x.at[...]` does not change x (JAX arrays are immutable); it returns a new array: return that array.",
    "01_immutable_updates.set_diagonal.mistake.rows": "Every row of the result is `values`: `m.at[idx]` with one index array selects whole rows, so each row was replaced instead of its diagonal entry. Index the rows and the columns together, with the same positions for both.",
    "01_immutable_updates.set_diagonal.mistake.zeros": "Every entry is 0: nothing of m is in the result. `m.at[...].set(...)` does not change m (JAX arrays are immutable); it returns a copy of m with the entries set: start from m, not from an array of zeros, and return the array the update gives.",
    "01_immutable_updates.histogram.mistake.nothing_counted": "Every bin holds 0: no index was counted. A functional update `counts.at[...].add(...)` does not change counts (JAX arrays are immutable); it returns a new array: keep the array it returns, and return that.",
    "01_immutable_updates.swap_rows.mistake.zeros": "Every entry is 0: nothing of m is in the result. `m.at[...].set(...)` does not change m (JAX arrays are immutable); it returns a new array: start from m, exchange rows i and j, and return the array the update gives.",
}

IDEAS: dict[str, str] = {
    "01_immutable_updates.set_diagonal.unrolled_fix": "A Python loop over the diagonal is unrolled while tracing, one update per entry. Update every diagonal entry in one functional update, indexing rows and columns with the same array of positions.",
    "01_immutable_updates.histogram.dtype": "the counts must be int32: start the histogram from an integer array of zeros.",
    "01_immutable_updates.set_element.dtype": "a functional update through `x.at[...]` keeps the dtype of x; arithmetic or `jnp.where` promotes the result to the dtype of the value.",
}

APIS: dict[str, tuple[str, ...]] = {
    "01_immutable_updates.set_diagonal.unrolled_fix": ("jax.numpy.ndarray.at", "jax.numpy.arange"),
    "01_immutable_updates.histogram.dtype": ("jax.numpy.zeros(dtype=...)",),
    "01_immutable_updates.set_element.dtype": ("jax.numpy.ndarray.at",),
}

# The names of this assignment's own graded properties (its @graded tests', grading.toml's), translated in
# ko.po as every "check_name." key; the kit's common ones ("correct", "jittable"...) are catalog/messages.py's.
CHECK_NAMES: tuple[str, ...] = (
    "negative index",
    "jittable with index and value traced",
    "dtype of x kept",
    "correct with a vector of values",
    "correct with a scalar value",
    "no Python loop over the diagonal",
    "duplicates counted",
    "jittable with num_bins static",
    "i == j leaves m unchanged",
    "jittable with i and j traced",
)
