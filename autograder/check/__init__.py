"""The trusted parent's side of a check: the pytest fixture, JAX facts, comparisons, results."""
