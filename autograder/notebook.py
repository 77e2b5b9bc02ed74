"""Check cells: `from autograder.notebook import check` in a released notebook (kept for those notebooks)."""

from autograder.integrations.notebook import check

__all__ = ["check"]
