"""JAX's own compiled programs, shared by a batch's sandbox children: built from kit code, no answer key, same grades.

A child may do what it likes with its copy; the store, and so every other
child, stays as built; and grading with the programs gives the same results
as compiling everything.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from conftest import REPO

from autograder import grading_config
from autograder.child.audit_guard import MAX_CREATED_FILES
from autograder.child.compiled_programs import CACHE_DIRECTORY
from autograder.grade.batch import grade_batch
from autograder.grade.pipeline import GradingOptions, WorkerResources, grade_submission
from autograder.grade.run_options import RunOptions
from autograder.load.submission_source import read
from autograder.sandbox import compilation_cache, shared_programs
from autograder.sandbox.shared_programs import SharedPrograms, defined_names, is_library_program

ASSIGNMENT = "02_where"
SOLUTION = REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
HASH = "0" * 64

SPOILER = f'''
import os
for name in os.listdir({CACHE_DIRECTORY!r}):
    with open(os.path.join({CACHE_DIRECTORY!r}, name), "wb") as handle:
        handle.write(b"not a program")
import jax.numpy as jnp

def sum_of_positive_numbers(x):
    return jnp.where(x > 0, x, 0).sum()
'''


# --- which programs are kept -------------------------------------------------------

@pytest.mark.parametrize("entry", [f"jit_multiply-{HASH}-cache", f"jit__normal-{HASH}-cache", f"jit_scatter-add-{HASH}",
                                   f"jit__where-{HASH}-atime"])
def test_programs_of_jax_operations_are_kept(entry):
    assert is_library_program(entry, frozenset({"set_diagonal", "histogram"}))


@pytest.mark.parametrize("entry", [
    f"jit_set_diagonal-{HASH}-cache",  # the solution's own function, jitted
    f"jit_autograder_counted_histogram-{HASH}-cache",  # the kit's trace-counting wrapper around it
    f"jit__lambda_-{HASH}-cache",  # a lambda
    f"jit_while-{HASH}-cache", f"jit_cond-{HASH}-cache", f"jit_scan-{HASH}-cache",  # carry the solution's functions
    f"jit_custom_jvp_call-{HASH}-cache",
    "jit_multiply",  # not a cache entry
    f"README-{HASH}",
])
def test_programs_that_could_hold_the_solution_are_dropped(entry):
    assert not is_library_program(entry, frozenset({"set_diagonal", "histogram"}))


def test_defined_names_are_the_functions_classes_and_assignment_targets():
    names = defined_names(["def f(x):\n    y = x\n    return y\nclass K: pass\nstep = jax.jit(f)", "def broken(:"])
    assert names == {"f", "y", "K", "step"}


# --- the store, with real sandbox children -------------------------------------------

def test_a_failed_build_shares_nothing_and_is_not_retried(tmp_path):
    calls = []

    def build(assignment, directory, part=0, parts=1):
        calls.append(assignment)
        raise RuntimeError("no solution")

    store = SharedPrograms(tmp_path, build)
    assert store.for_assignment(ASSIGNMENT) is None
    assert store.for_assignment(ASSIGNMENT) is None
    assert calls == [ASSIGNMENT]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """02's solution, a spoiler and a stub graded in one batch with shared programs, and again without."""
    config = grading_config.load()
    root = tmp_path_factory.mktemp("batch")
    submissions = root / "submissions"
    submissions.mkdir()
    (submissions / f"solution_{ASSIGNMENT}.ipynb").write_bytes(SOLUTION.read_bytes())
    (submissions / f"spoiler_{ASSIGNMENT}.py").write_text(SPOILER)
    stub = REPO / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    (submissions / f"stub_{ASSIGNMENT}.ipynb").write_bytes(stub.read_bytes())
    with_programs = grade_batch([submissions], root / "with", RunOptions(config, 2026), jobs=1)
    return {r["extra_data"]["submission"]: r for r in with_programs}, root, config


def test_a_child_that_spoils_its_copy_spoils_nothing_else(batch):
    results, _, _ = batch
    spoiler = results[f"spoiler_{ASSIGNMENT}"]
    passed = [t for t in spoiler["tests"] if t["name"].startswith("sum_of_positive_numbers")]
    assert passed and all(t["status"] == "passed" for t in passed), passed
    # The solution, graded after the spoiler by the same worker, still gets full marks from intact programs.
    solution = results[f"solution_{ASSIGNMENT}"]
    assert solution["score"] == solution["extra_data"]["max_score"], solution


def test_grading_with_shared_programs_gives_the_same_results_as_without(batch, tmp_path):
    results, root, config = batch
    for name, result in results.items():
        if name.startswith("spoiler"):
            continue  # without programs it has no cache directory to spoil, and fails on that
        path = next((root / "submissions").glob(f"{name}.*"))
        without = grade_submission(path, config, GradingOptions(seed=2026)).to_gradescope()
        assert result["tests"] == without["tests"], name
        assert not any("changed the grading environment" in note for note in result["extra_data"].get("notes",
                                                                                                      [])), name


def test_the_store_holds_library_programs_only_and_children_cannot_change_it(tmp_path):
    config = grading_config.load()
    built = []

    def build(assignment, directory, part=0, parts=1):
        # What a worker does (see batch_worker._build_programs).
        written = tmp_path / "written"
        grade_submission(SOLUTION, config, GradingOptions(seed=2026), WorkerResources(write_programs_to=written))
        built.extend(entry.name for entry in written.iterdir())
        defined = defined_names([cell.source for cell in read(SOLUTION).cells])
        shared_programs.keep_library_programs(written, defined, directory)

    store = SharedPrograms(tmp_path / "store", build)
    (tmp_path / "store").mkdir()
    directory = store.for_assignment(ASSIGNMENT)
    assert directory is not None
    kept = sorted(entry.name for entry in directory.iterdir())
    assert kept and all(is_library_program(name, frozenset(config.functions(ASSIGNMENT))) for name in kept)
    named_after_graded = {name for name in built
                          if any(name.startswith(f"jit_{function}-") for function in config.functions(ASSIGNMENT))}
    # jit of the graded functions now runs in the parent (from the exported program), so the
    # child may compile none named after them; any it did compile must not be kept.
    assert not named_after_graded & set(kept), named_after_graded
    before = {entry.name: hashlib.sha256(entry.read_bytes()).hexdigest() for entry in directory.iterdir()}
    spoiler = tmp_path / f"spoiler_{ASSIGNMENT}.py"
    spoiler.write_text(SPOILER)
    result = grade_submission(spoiler, config,
                              GradingOptions(seed=2026, assignment=ASSIGNMENT, functions={"sum_of_positive_numbers"}),
                              WorkerResources(programs=store))
    assert result.score == result.max_score > 0, json.dumps([c.feedback for c in result.checks])
    assert {entry.name: hashlib.sha256(entry.read_bytes()).hexdigest() for entry in directory.iterdir()} == before


def test_a_jax_primitive_named_like_part_of_a_solution_name_is_kept():
    # 07's solution defines `dot`; JAX's eager dot_general must still be shared, `dot` itself must not.
    primitives = shared_programs.primitive_names()
    assert "dot_general" in primitives
    assert is_library_program(f"jit_dot_general-{HASH}-cache", frozenset({"dot"}), primitives)
    assert not is_library_program(f"jit_dot-{HASH}-cache", frozenset({"dot"}), primitives)
    assert not is_library_program(f"jit_while-{HASH}-cache", frozenset(), primitives | {"while"})


def test_the_primitives_the_writing_child_listed_decide_without_importing_jax(tmp_path):
    # A grading worker whose suites need no JAX (01's) never imports it: the writing child lists the primitives.
    import numpy as np

    shared_programs.write_received(tmp_path, [f"jit_dot_general-{HASH}-cache"], [np.zeros(3, np.uint8)],
                                   ["dot_general", "scatter-add", "../escape", "a b", 7])
    assert shared_programs.primitive_names(tmp_path) == {"dot_general"}, "only identifiers are kept"
    assert not is_library_program(shared_programs.PRIMITIVES_FILE, frozenset()), "the list is not a program"
    kept = tmp_path / "kept"
    kept.mkdir()
    shared_programs.keep_library_programs(tmp_path, frozenset({"dot"}), kept)
    assert [entry.name for entry in kept.iterdir()] == [f"jit_dot_general-{HASH}-cache"]


def test_a_build_split_in_parts_merges_every_part_once(tmp_path):
    built = []

    def build(assignment, directory, part=0, parts=1):
        built.append(part)
        (directory / f"jit_part{part}-{HASH}-cache").write_bytes(b"x")

    first = SharedPrograms(tmp_path, build, parts=3, first_part=1)
    second = SharedPrograms(tmp_path, build, parts=3, first_part=2)
    directory = first.for_assignment(ASSIGNMENT)
    assert second.for_assignment(ASSIGNMENT) == directory
    assert sorted(built) == [0, 1, 2] and built[0] == 1
    assert sorted(p.name for p in directory.iterdir()) == sorted(f"jit_part{k}-{HASH}-cache" for k in range(3))


def test_a_failed_part_adds_nothing_and_the_others_are_still_shared(tmp_path):
    def build(assignment, directory, part=0, parts=1):
        if part == 1:
            raise RuntimeError("this part's solution checks failed")
        (directory / f"jit_part{part}-{HASH}-cache").write_bytes(b"x")

    directory = SharedPrograms(tmp_path, build, parts=2).for_assignment(ASSIGNMENT)
    assert [p.name for p in directory.iterdir()] == [f"jit_part0-{HASH}-cache"]


def test_the_store_of_an_assignment_with_many_programs_is_complete(tmp_path):
    """A solution that compiles more programs than a submission may write files: its store must hold them all."""
    import nbformat

    config = grading_config.load()
    assignment = "07_vmap_pytrees"
    notebook = nbformat.read(REPO / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    shapes = 2 * MAX_CREATED_FILES
    notebook.cells.append(nbformat.v4.new_code_cell(  # one program per shape, eagerly
        f"import jax.numpy as jnp\nfor n in range(1, {shapes + 1}):\n    jnp.sin(jnp.ones(n))"))
    solution = tmp_path / f"{assignment}.ipynb"
    nbformat.write(notebook, str(solution))
    written = tmp_path / "written"
    grade_submission(solution, config, GradingOptions(seed=2026, assignment=assignment),
                     WorkerResources(write_programs_to=written))
    assert len(list(written.iterdir())) > shapes > MAX_CREATED_FILES


# --- the store kept for the next batch ------------------------------------------------------

def _counting_build(calls: list):
    def build(assignment, directory, part=0, parts=1):
        calls.append(assignment)
        (directory / "jit_add-0123").write_bytes(b"a program")

    return build


def test_a_later_batch_with_the_same_settings_skips_the_build(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_JAX_CACHE", str(tmp_path / "cache"))
    config, calls = grading_config.load(), []
    store, own = shared_programs.batch_store(config, 7, "os")
    assert not own and store.parent == tmp_path / "cache" / "programs" / compilation_cache.machine_kind()
    assert SharedPrograms(store, _counting_build(calls)).for_assignment(ASSIGNMENT) is not None
    again, _ = shared_programs.batch_store(config, 7, "os")
    assert again == store and SharedPrograms(again, _counting_build(calls)).for_assignment(ASSIGNMENT) is not None
    assert calls == [ASSIGNMENT], "the second batch built again"
    assert {shared_programs.batch_store(config, seed, sandbox)[0]
            for seed, sandbox in [(8, "os"), (7, "process")]}.isdisjoint({store}), "another seed or sandbox reused it"


def test_a_change_to_a_solution_builds_a_new_store(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_JAX_CACHE", str(tmp_path / "cache"))
    course = tmp_path / "course"
    (course / "solutions" / ASSIGNMENT).mkdir(parents=True)
    (course / "grading.toml").write_bytes((REPO / "grading.toml").read_bytes())
    solution = course / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    solution.write_bytes(SOLUTION.read_bytes())
    config = grading_config.load(course / "grading.toml")
    before, _ = shared_programs.batch_store(config, 7, "os")
    solution.write_bytes(SOLUTION.read_bytes() + b"\n")
    assert shared_programs.batch_store(config, 7, "os")[0] != before


def test_without_a_cache_the_store_is_the_batchs_own(monkeypatch):
    monkeypatch.setenv("AUTOGRADER_JAX_CACHE", "off")
    store, own = shared_programs.batch_store(grading_config.load(), 7, "os")
    try:
        assert own and store.is_dir() and store.stat().st_mode & 0o777 == 0o755
    finally:
        store.rmdir()


def test_only_the_newest_stores_are_kept_and_none_used_within_a_day_is_removed(tmp_path, monkeypatch):
    import os
    import time

    monkeypatch.setenv("AUTOGRADER_JAX_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "cache" / "programs" / compilation_cache.machine_kind()
    old = time.time() - 2 * shared_programs.STORE_IDLE_SECONDS
    for index in range(shared_programs.KEPT_STORES + 3):
        (root / f"old{index:02d}").mkdir(parents=True)
        os.utime(root / f"old{index:02d}", (old + index, old + index))
    (root / "recent").mkdir()
    os.utime(root / "recent", (time.time() - 3600, time.time() - 3600))
    store, _ = shared_programs.batch_store(grading_config.load(), 7, "os")
    left = sorted(entry.name for entry in root.iterdir())
    kept_old = shared_programs.KEPT_STORES - 2  # beside this batch's store and the recent one
    newest_old = [f"old{index:02d}" for index in range(shared_programs.KEPT_STORES + 3)][-kept_old:]
    assert left == sorted([store.name, "recent", *newest_old]), left
