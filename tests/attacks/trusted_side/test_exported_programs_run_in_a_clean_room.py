"""What a submission exports cannot hurt the trusted side that reads and runs it.

For "jittable" and structure checks the sandbox child sends the program it
lowered with `jax.export`; the trusted grading worker reads it and runs it on
the hidden inputs. That program is built by the student, so whatever reads,
compiles or runs it must treat it as hostile. One `autograder grade` batch
holds attacks on 01_immutable_updates and 09_autodiff
(tests/attacks/cleanroom_*_01.py, *_09.py), each next to its honest twin (the
same code without the trick), and three honest classmates (the solution
notebooks):

- custom_call: a custom call to a target on JAX's stable list (LAPACK's sgetrf)
  whose declared result is far smaller than what the kernel writes;
- named_scope: a Python loop over the diagonal, hidden behind a named scope
  full of fake operation names in the program's debug locations;
- cache_marker: an 8 MiB constant of marker bytes in the exported program;
- endless_loop: a lax.while_loop that never ends at the hidden inputs;
- host_wait: a primitive of the student's own that lowers to stablehlo.infeed,
  which blocks the runner for host data that never comes, using no CPU;
- padded_loop: a Python loop over the diagonal, padded with value-neutral
  operations of several kinds whose number falls as n grows, so that the
  total count is smaller at the large size;
- kind_padded_loop: a Python loop over the diagonal, one scatter per entry,
  padded with more scatters of the same shape up to a count above every drawn
  size, so that every kind holds the same count at both sizes;
- hidden_jacobian (09): the whole m x n Jacobian, computed inside a program
  exported for symbolic sizes, whose dynamic dimensions a walk of declared
  types counted as 0 elements.

Each attack earns exactly what its honest twin earns, minus the points of the
checks that use its exported program; nothing a submission built is left in
any JAX compilation cache the grader could use; the batch finishes and the
classmates keep full marks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zlib
from pathlib import Path

import pytest
from conftest import REPO, course_config

ATTACKS = REPO / "tests" / "attacks"
ASSIGNMENT = "01_immutable_updates"
# Each attack and the assignment it is graded as (its file: cleanroom_<name>_<the assignment's number>.py).
ATTACKED = {"custom_call": ASSIGNMENT, "named_scope": ASSIGNMENT, "cache_marker": ASSIGNMENT,
            "endless_loop": ASSIGNMENT, "host_wait": ASSIGNMENT, "padded_loop": ASSIGNMENT,
            "kind_padded_loop": ASSIGNMENT, "hidden_jacobian": "09_autodiff"}
CLASSMATES = ("01_immutable_updates", "02_where", "09_autodiff")
MARKER = bytes.fromhex("c0ffee5a17e5d00d0b5e55ed2bad1dea")  # as in cleanroom_cache_marker_01.py
CALL_SECONDS = 4  # the endless loop costs this much CPU per request: short, far above an honest call
BATCH_TIMEOUT_SECONDS = 900


def _attack(name: str) -> str:
    return f"cleanroom_{name}_{ATTACKED[name]}"


def _twin(name: str) -> str:
    return f"cleanroom_{name}_honest_{ATTACKED[name]}"


def _classmate(assignment: str) -> str:
    return f"classmate_{assignment}"


@pytest.fixture(scope="module")
def clean_room_batch(tmp_path_factory):
    """The attacks, their twins and two classmates graded by the real CLI, with a home and temp dir of their own."""
    text = (REPO / "grading.toml").read_text()
    config_text = text.replace("load_seconds = 60", "load_seconds = 8").replace(
        "call_seconds = 30", f"call_seconds = {CALL_SECONDS}")
    assert config_text.count("load_seconds = 8") == 1 and config_text.count(f"call_seconds = {CALL_SECONDS}") == 1
    config = course_config(tmp_path_factory.mktemp("config"), config_text)
    batch = tmp_path_factory.mktemp("clean_room_batch")
    for name, assignment in ATTACKED.items():
        number = assignment[:2]
        shutil.copy(ATTACKS / f"cleanroom_{name}_{number}.py", batch / f"{_attack(name)}.py")
        shutil.copy(ATTACKS / f"cleanroom_{name}_honest_{number}.py", batch / f"{_twin(name)}.py")
    for assignment in CLASSMATES:
        shutil.copy(REPO / "solutions" / assignment / f"{assignment}.ipynb", batch / f"{_classmate(assignment)}.ipynb")
    out = tmp_path_factory.mktemp("clean_room_out")
    places = tmp_path_factory.mktemp("grader_places")
    home, cache_home, temp = places / "home", places / "xdg-cache", places / "tmp"
    for directory in (home, cache_home, temp):
        directory.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "AUTOGRADER_JAX_CACHE"}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(cache_home), TMPDIR=str(temp))
    completed = subprocess.run(
        [sys.executable, "-m", "autograder", "--config", str(config), "grade", str(batch), "--out", str(out),
         "--seed", "11"],
        cwd=REPO, capture_output=True, text=True, timeout=BATCH_TIMEOUT_SECONDS, env=env)
    return {"completed": completed, "out": out, "scanned": (home, cache_home, temp),
            "points": tomllib.loads(config_text)["assignments"], "count": len(list(batch.iterdir()))}


def _result(batch, name: str) -> dict:
    path = batch["out"] / name / "results.json"
    assert path.is_file(), f"no result for {name}; stderr: {batch['completed'].stderr[-3000:]}"
    return json.loads(path.read_text())


def _failed(result: dict) -> dict[str, str]:
    return {t["name"]: t.get("output", "") for t in result["tests"] if t["status"] != "passed"}


def _points(batch, name: str, check: str) -> int:
    function, _, prop = check.partition(": ")
    return batch["points"][ATTACKED[name]][function][prop]


def _graded_to_the_end(result: dict) -> bool:
    """The worker finished grading it: no crash, no deadline, no grader error."""
    extra = result["extra_data"]
    return extra.get("problem") is None and extra.get("finished") is True


def _costs_only(batch, name: str, checks: set[str], feedback: str) -> None:
    """The attack earns its twin's score minus `checks`, which fail saying `feedback`; nothing else fails."""
    twin, attack = _result(batch, _twin(name)), _result(batch, _attack(name))
    twin_failed, attack_failed = _failed(twin), _failed(attack)
    expected = twin["score"] - sum(_points(batch, name, c) for c in checks - set(twin_failed))
    report = json.dumps({"attack": attack_failed, "output": attack.get("output", "")[:1500]}, indent=1)[:4000]
    assert _graded_to_the_end(attack), f"{name}: {attack['extra_data'].get('problem')}: {report}"
    assert attack["score"] == expected, f"{name}: scored {attack['score']}, expected {expected}: {report}"
    assert set(attack_failed) == set(twin_failed) | checks, report
    for check in checks:
        assert feedback in attack_failed[check].lower(), f"{check}: {attack_failed[check]}"


def _marker_places(roots) -> list[str]:
    """Every regular file under `roots` whose bytes, or whose bytes decompressed, hold MARKER."""
    found = []
    for root in roots:
        for path in sorted(Path(root).rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            if MARKER in data or any(MARKER in plain for plain in _decompressed(data)):
                found.append(str(path))
    return found


def _decompressed(data: bytes) -> list[bytes]:
    """`data` as JAX's compilation cache may have compressed it (zlib, or zstandard when installed)."""
    out = []
    try:
        out.append(zlib.decompress(data))
    except zlib.error:
        pass
    try:
        import zstandard
    except ImportError:
        return out
    try:
        out.append(zstandard.ZstdDecompressor().decompressobj().decompress(data))
    except zstandard.ZstdError:
        pass
    return out


def test_a_custom_call_costs_only_its_check_and_the_worker_survives(clean_room_batch):
    _costs_only(clean_room_batch, "custom_call", {"set_element: jittable with index and value traced"},
                "custom call")


def test_structure_facts_ignore_debug_location_text(clean_room_batch):
    loop = "set_diagonal: no Python loop over the diagonal"
    assert loop in _failed(_result(clean_room_batch, _twin("named_scope"))), "the twin's loop must be caught"
    attack, twin = _result(clean_room_batch, _attack("named_scope")), _result(clean_room_batch, _twin("named_scope"))
    assert loop in _failed(attack), f"fake operation names in debug locations earned {loop!r}"
    assert attack["score"] == twin["score"], _failed(attack)
    assert set(_failed(attack)) == set(_failed(twin)), _failed(attack)


def test_no_cache_holds_anything_a_submission_built(clean_room_batch):
    attack = _result(clean_room_batch, _attack("cache_marker"))
    # Not vacuous: the grader did run the program holding the marker, and it computed the right values.
    jittable = "set_element: jittable with index and value traced"
    assert jittable not in _failed(attack), _failed(attack)
    assert _result(clean_room_batch, _twin("cache_marker"))["score"] == attack["score"], _failed(attack)
    assert _marker_places(clean_room_batch["scanned"]) == []


def test_an_endless_traced_loop_costs_only_its_check(clean_room_batch):
    _costs_only(clean_room_batch, "endless_loop", {"set_element: jittable with index and value traced"},
                "ran longer than")


def test_a_program_that_waits_for_the_host_is_refused_and_costs_only_its_check(clean_room_batch):
    _costs_only(clean_room_batch, "host_wait", {"set_element: jittable with index and value traced"},
                "stablehlo.infeed")


def test_a_loop_padded_to_shrink_as_n_grows_still_loses_no_python_loop(clean_room_batch):
    loop = "set_diagonal: no Python loop over the diagonal"
    assert loop in _failed(_result(clean_room_batch, _twin("padded_loop"))), "the twin's loop must be caught"
    _costs_only(clean_room_batch, "padded_loop", {loop}, "unrolled")


def test_a_loop_padded_with_its_own_kinds_still_loses_no_python_loop(clean_room_batch):
    """Every kind holds the same count at both sizes; the large size holds a scatter per entry or more."""
    loop = "set_diagonal: no Python loop over the diagonal"
    assert loop in _failed(_result(clean_room_batch, _twin("kind_padded_loop"))), "the twin's loop must be caught"
    _costs_only(clean_room_batch, "kind_padded_loop", {loop}, "at least one per entry")


def test_a_jacobian_of_unknown_size_is_never_counted_as_small(clean_room_batch):
    no_jacobian = "directional_derivative: no array of m·n elements (forward mode)"
    assert no_jacobian in _failed(_result(clean_room_batch, _twin("hidden_jacobian"))), "the twin's Jacobian shows"
    _costs_only(clean_room_batch, "hidden_jacobian", {no_jacobian}, "sizes are not fixed")


@pytest.mark.parametrize("assignment", CLASSMATES)
def test_honest_classmates_keep_full_marks(clean_room_batch, assignment):
    result = _result(clean_room_batch, _classmate(assignment))
    assert result["score"] == result["extra_data"]["max_score"] > 0, _failed(result)


def test_the_batch_finishes_normally(clean_room_batch):
    completed = clean_room_batch["completed"]
    assert completed.returncode == 0, completed.stderr[-3000:]
    results = sorted(clean_room_batch["out"].glob("*/results.json"))
    assert len(results) == clean_room_batch["count"]
    # No worker crashed and no submission ran into its whole-submission deadline: each hostile program
    # was stopped on its own, inside the check that ran it.
    unfinished = {path.parent.name: json.loads(path.read_text())["extra_data"].get("problem") for path in results
                  if not _graded_to_the_end(json.loads(path.read_text()))}
    assert unfinished == {}, completed.stdout[-3000:]
