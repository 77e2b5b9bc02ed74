"""Student-facing sentences and hints, in English and in every translation."""
