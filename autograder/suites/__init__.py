"""One pytest suite per assignment, one test per graded property.

Tests reach student code only through the `submission` fixture and draw
hidden inputs only from the `rng` fixture; points live in grading.toml.
"""
