"""Auto-graded JAX exercises: a JAX-aware pytest grader for notebooks."""
