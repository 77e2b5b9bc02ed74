"""Reading submissions: which student, which notebook, which code cells."""
