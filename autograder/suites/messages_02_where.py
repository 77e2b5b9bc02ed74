"""02_where: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {
    "02_where.masked_mean.empty": "with no True entry, `sum / count` is 0 / 0 = NaN. Divide by `jnp.maximum(count, 1)` (the sum is 0 then), or choose with `jnp.where(count > 0, ..., 0.0)`; sum with `jnp.where(mask, x, 0)` so no boolean indexing is needed.",
    "02_where.safe_log.double_where": "`jnp.where(x > 0, jnp.log(x), 0.)` is right in value, but its gradient is NaN where x <= 0: the unused branch log(x) still gets a gradient of 0 * inf. Use the double-where idiom: `safe_x = jnp.where(x > 0, x, 1.0)` first, then `jnp.where(x > 0, jnp.log(safe_x), 0.0)`.",
}

IDEAS: dict[str, str] = {
    "02_where.masked_mean.empty": "with no True entry the mean divides 0 by 0, which is NaN. Guard the division so that an empty mask gives 0.",
    "02_where.safe_log.double_where": "a `jnp.where` that picks 0 is right in value, but the unused `log` branch is still differentiated, and its gradient 0 * inf is NaN where x <= 0. Give the log only safe inputs with a first `jnp.where`, then choose the result with a second one (the double-where idiom).",
}

APIS: dict[str, tuple[str, ...]] = {
    "02_where.masked_mean.empty": ("jax.numpy.where", "jax.numpy.maximum"),
    "02_where.safe_log.double_where": ("jax.numpy.where", "JAX FAQ: gradients contain NaN where using where"),
}
