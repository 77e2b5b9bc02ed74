"""The scripts in Gradescope's autograder zip: `setup.sh` and `run_autograder`, as text.

Gradescope runs setup.sh once, as root, when it builds the autograder's image,
and run_autograder for every submission, from /autograder. Both read
AUTOGRADER_GRADESCOPE_ROOT instead of /autograder when it is set, and
run_autograder reads AUTOGRADER_GRADESCOPE_PYTHON for the Python to use (the
kit's tests and anyone trying a zip on a Linux machine set them).
"""

from __future__ import annotations

ROOT_VARIABLE = "AUTOGRADER_GRADESCOPE_ROOT"
PYTHON_VARIABLE = "AUTOGRADER_GRADESCOPE_PYTHON"
DEFAULT_ROOT = "/autograder"


def setup_script(assignment: str, wheel: str, pins: list[str], has_released: bool) -> str:
    """setup.sh: run once, as root, when Gradescope builds the autograder's image."""
    released = _released_notebook_steps(assignment) if has_released else ""
    pin_lines = "\n".join(pins)
    return f'''#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image for
# {assignment}. It installs the OS sandbox's tools (bubblewrap, libseccomp),
# Python 3.11, and the kit with every package at the version it was tested with.
set -euo pipefail
ROOT="${{{ROOT_VARIABLE}:-{DEFAULT_ROOT}}}"
SOURCE="$ROOT/source"
VENV="$SOURCE/venv"
export DEBIAN_FRONTEND=noninteractive

apt-get update -qq
apt-get install -y -qq --no-install-recommends bubblewrap libseccomp2 ca-certificates

have_python311() {{
  command -v python3.11 >/dev/null 2>&1 &&
    python3.11 -c 'import sys, ensurepip, venv; assert sys.version_info[:2] == (3, 11)' >/dev/null 2>&1
}}
if ! have_python311; then
  if grep -qi '^ID=ubuntu' /etc/os-release 2>/dev/null; then
    apt-get install -y -qq --no-install-recommends software-properties-common gpg-agent
    add-apt-repository -y ppa:deadsnakes/ppa
    apt-get update -qq
  fi
  apt-get install -y -qq --no-install-recommends python3.11 python3.11-venv
fi
have_python311 || {{ echo "setup.sh: could not install Python 3.11 with ensurepip and venv" >&2; exit 1; }}

python3.11 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip

# Every package at the version the zip was built with (the kit's pins from
# pyproject.toml, and the versions of their dependencies the kit was tested with).
cat > "$SOURCE/constraints.txt" <<'PINS'
{pin_lines}
PINS
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \\
    --constraint "$SOURCE/constraints.txt" "$SOURCE/{wheel}"
"$VENV/bin/python" -c "from autograder import grading_config; grading_config.load('$SOURCE/grading.toml')"
{released}
# Say in the build log whether the OS sandbox works here. The image build may not
# allow what a grading container allows, so this only informs.
if "$VENV/bin/python" -c 'from autograder.sandbox import os_isolation; os_isolation.check_available()'; then
  echo "setup.sh: the OS sandbox works in this image."
else
  echo "setup.sh: the OS sandbox did not start during the image build (see above)."
fi
chmod +x "$ROOT/run_autograder" "$SOURCE/run_autograder" 2>/dev/null || true
'''


def run_script(assignment: str, sandbox: str, visibility: str, stdout_visibility: str) -> str:
    """run_autograder: grade $ROOT/submission into $ROOT/results/results.json, whatever happens."""
    return f'''#!/usr/bin/env bash
# Gradescope runs this for every submission of {assignment}, from /autograder.
# It grades the notebook in $ROOT/submission/ and writes $ROOT/results/results.json,
# in every case (a zero with the reason when grading fails).
# Testing hooks: {ROOT_VARIABLE} replaces /autograder; {PYTHON_VARIABLE} is a
# Python with the kit installed, used instead of the one setup.sh installed.
set -u
ROOT="${{{ROOT_VARIABLE}:-{DEFAULT_ROOT}}}"
SOURCE="$ROOT/source"
PYTHON="${{{PYTHON_VARIABLE}:-$SOURCE/venv/bin/python}}"
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
rm -f "$RESULTS"

"$PYTHON" -m autograder.integrations.gradescope_zip run --root "$ROOT" --assignment {assignment} \\
    --config "$SOURCE/grading.toml" --sandbox {sandbox} \\
    --visibility {visibility} --stdout-visibility {stdout_visibility}
status=$?

if [ ! -s "$RESULTS" ]; then
  # Python could not start or stopped before writing anything: a zero that says so.
  printf '%s\\n' '{{"score": 0.0, "output": "The autograder could not run, so this submission was not graded and scores 0. This is not your fault: course staff can see what happened in the autograder output.", "output_format": "text", "visibility": "{visibility}", "stdout_visibility": "{stdout_visibility}", "tests": [], "extra_data": {{"assignment": "{assignment}", "problem": "grader_error"}}}}' > "$RESULTS"
  echo "run_autograder: $PYTHON exited with status $status without writing $RESULTS; wrote a zero." >&2
fi
exit 0
'''


def _released_notebook_steps(assignment: str) -> str:
    """setup.sh's steps for the released notebook: compile the references by grading it."""
    return f'''
# The released notebook stays in $SOURCE/assignments/, beside grading.toml, where the
# kit looks for the course's: the grader then skips the notebook's unchanged example
# cells, which change no grade and cost compile time.

# Compile the suite's reference programs once, into this image's JAX cache, by
# grading the released notebook (kit code only, so without the OS sandbox).
"$VENV/bin/python" -m autograder --config "$SOURCE/grading.toml" grade \\
    "$SOURCE/assignments/{assignment}/{assignment}.ipynb" --out "$(mktemp -d)" --jobs 1 \\
    --assignment {assignment} --sandbox process >/dev/null 2>&1 || true
'''
