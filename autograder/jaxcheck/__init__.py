"""Small, reusable JAX checks: tracing, jaxpr structure, trace counts, comparisons, hints."""
