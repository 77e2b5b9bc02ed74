"""02_where: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {
    "02_where.masked_mean.empty": "with no True entry, `sum / count` is 0 / 0 = NaN. Divide by `jnp.maximum(count, 1)` (the sum is 0 then), or choose with `jnp.where(count > 0, ..., 0.0)`; sum with `jnp.where(mask, x, 0)` so no boolean indexing is needed.",
    "02_where.safe_log.double_where": "`jnp.where(x > 0, jnp.log(x), 0.)` is right in value, but its gradient is NaN where x <= 0: the unused branch log(x) still gets a gradient of 0 * inf. Use the double-where idiom: `safe_x = jnp.where(x > 0, x, 1.0)` first, then `jnp.where(x > 0, jnp.log(safe_x), 0.0)`.",
    "02_where.sum_of_positive_numbers.mistake.mean": "The value is exactly the mean of the positive entries: it divides by their count. The exercise asks for their sum.",
    "02_where.sum_of_positive_numbers.mistake.all_entries": "The value is exactly the sum of all entries: the negative ones are not left out. Keep an entry only where it is positive (0 elsewhere), then sum.",
    "02_where.sum_of_positive_numbers.mistake.mean_of_all": "The value is exactly the mean of the entries with the negative ones set to 0: it divides by the length of x. The exercise asks for the sum of the positive entries.",
    "02_where.selu.mistake.no_scale": "The values are exactly selu without its scale `lmbda`: neither branch is multiplied by it. Multiply the whole result, both branches, by `lmbda`.",
    "02_where.selu.mistake.scale_positive_only": "The values are exactly selu with `lmbda` on the positive branch only: the negative branch is missing its factor `lmbda`. Both branches are multiplied by `lmbda`.",
    "02_where.selu.mistake.scale_negative_only": "The values are exactly selu with `lmbda` on the negative branch only: the positive branch is missing its factor `lmbda`. Both branches are multiplied by `lmbda`.",
    "02_where.selu.mistake.swapped_parameters": "The values are exactly selu with `alpha` and `lmbda` swapped: `alpha` belongs inside the negative branch, with the exponential, and `lmbda` scales the result.",
    "02_where.masked_mean.mistake.all_entries": "The value is exactly the masked sum divided by the length of x: it divides by every entry, not by the number of True entries in the mask.",
    "02_where.safe_log.mistake.log1p": "The values are exactly log(1 + x) where x > 0: `log1p` computes the log of 1 + x, not of x. Take the log of x itself where x is positive.",
    "02_where.safe_log.mistake.abs": "The values are exactly the log of |x|: negative entries get the log of their absolute value. Where x <= 0 the result is 0.",
    "02_where.selu.mistake.identity": "The values are exactly x, unchanged: neither branch of selu was applied. Where x > 0 the result is `lmbda * x`, elsewhere `lmbda * alpha * (exp(x) - 1)`; choose between them with `jnp.where`.",
    "02_where.safe_log.mistake.no_log": "The values are exactly x where x > 0 and 0 elsewhere: the log itself is missing. The safe input `jnp.where(x > 0, x, 1.0)` only keeps the log defined; take `jnp.log` of it where x > 0.",
    "02_where.sum_of_positive_numbers.recipe": "keep each entry where it is positive and put 0 in place of the others, `jnp.where(x > 0, x, 0.0)`, then sum that array.",
    "02_where.masked_mean.recipe": "sum the entries where the mask is True, `jnp.where(mask, x, 0.0).sum()`, and divide by the number of True entries, `mask.sum()`, guarded so that an empty mask gives 0.",
}

IDEAS: dict[str, str] = {
    "02_where.masked_mean.empty": "with no True entry the mean divides 0 by 0, which is NaN. Guard the division so that an empty mask gives 0.",
    "02_where.safe_log.double_where": "a `jnp.where` that picks 0 is right in value, but the unused `log` branch is still differentiated, and its gradient 0 * inf is NaN where x <= 0. Give the log only safe inputs with a first `jnp.where`, then choose the result with a second one (the double-where idiom).",
    "02_where.sum_of_positive_numbers.recipe": "the sum of the positive entries: choose elementwise between each entry and 0, so the shape stays fixed, then sum.",
    "02_where.masked_mean.recipe": "the mean of the entries where the mask is True: their sum, chosen elementwise with the mask, divided by how many entries are True (0 for an empty mask).",
}

APIS: dict[str, tuple[str, ...]] = {
    "02_where.masked_mean.empty": ("jax.numpy.where", "jax.numpy.maximum"),
    "02_where.safe_log.double_where": ("jax.numpy.where", "JAX FAQ: gradients contain NaN where using where"),
    "02_where.sum_of_positive_numbers.recipe": ("jax.numpy.where",),
    "02_where.masked_mean.recipe": ("jax.numpy.where",),
}

# The names of this assignment's own graded properties (its @graded tests', grading.toml's), translated in
# ko.po as every "check_name." key; the kit's common ones ("correct", "jittable"...) are catalog/messages.py's.
CHECK_NAMES: tuple[str, ...] = (
    "no positive entries gives 0",
    "empty mask gives 0, not NaN",
    "gradient finite everywhere",
)
