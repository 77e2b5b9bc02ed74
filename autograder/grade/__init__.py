"""Grading: one submission as a pipeline of named steps, and a whole class in parallel."""
