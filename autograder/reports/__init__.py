"""Writers of grading results: Gradescope JSON, CSV, the terminal table."""
