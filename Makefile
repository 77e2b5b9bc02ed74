# Quick start: `make demo` grades the bundled examples; `make test` runs the test suite.
# Each creates the virtual environment (.venv) on first use.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# The OS sandbox needs root; elsewhere the demo grades its own bundled examples
# with the weaker sandbox, which `autograder grade` then announces.
SANDBOX ?= $(shell [ "$$(id -u)" = 0 ] && echo os || echo process)

.PHONY: demo test test-jax-versions lint bench release clean test-fast test-assignment suite-api-docs

$(STAMP): pyproject.toml
	scripts/install_sandbox_tools.sh
	scripts/install_browser.sh
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m autograder grade examples --out out/examples --jobs $(JOBS) --seed 2026 --sandbox $(SANDBOX)

# --no-loadscope-reorder: files start in the order tests/conftest.py gives them (longest first), not by test count.
test: lint
	$(PY) -m pytest tests -n $(JOBS) --dist loadfile --no-loadscope-reorder -q -m "not jax_matrix"

# The student package on every JAX release it supports (autograder/student/jax_support.py TESTED), each in a
# venv of its own, kept with the downloaded wheels in ~/.cache/jax-exercise-kit between runs. .ci/run runs it.
test-jax-versions: $(STAMP)
	$(PY) -m pytest tests -n $(JOBS) --dist load -q -m jax_matrix

# The inner loop: every test but the slow tiers and the per-assignment suite runs (tests/conftest.py TIERS).
test-fast: $(STAMP)
	$(PY) -m pytest tests -n $(JOBS) --dist loadfile --no-loadscope-reorder -q -m "unit"

# The tests that cover one assignment: every test whose id names it, and the assignment-wide ones.
test-assignment: $(STAMP)
	@test -n "$(A)" || { echo "usage: make test-assignment A=<assignment>" >&2; exit 2; }
	$(PY) -m pytest tests -n $(JOBS) --dist loadfile --no-loadscope-reorder -q --assignment $(A)

# docs/writing-a-suite.md's reference, from autograder/suites/api.py's docstrings (tests/test_suite_api.py checks it).
suite-api-docs: $(STAMP)
	$(PY) scripts/suite_api_reference.py

# ruff's rules and mypy's settings are in pyproject.toml; part of `make test`, so of CI.
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy

# autograder grade against nbgrader autograde on the same submissions, and JAX's floor (minutes; docs/benchmark.md).
bench: $(STAMP)
	$(PY) benchmarks/run.py --jobs $(JOBS)
	$(PY) benchmarks/kernel_confinement.py

release: $(STAMP)
	$(PY) -m autograder release

clean:
	rm -rf $(VENV) out
