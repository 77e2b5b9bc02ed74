"""Incremental release: an assignment whose inputs hash as at its last release is not re-run through nbgrader."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO

from autograder.integrations import release, release_manifest

ASSIGNMENT = "02_where"


def test_the_hash_follows_the_solutions_and_the_points(config, tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = 1\n")
    source = tmp_path / "solutions" / "a.ipynb"
    source.parent.mkdir()
    source.write_text("{}")
    first = release_manifest.inputs_hash(config, ASSIGNMENT, [source], root=tmp_path)
    assert release_manifest.inputs_hash(config, ASSIGNMENT, [source], root=tmp_path) == first
    source.write_text('{"cells": []}')
    assert release_manifest.inputs_hash(config, ASSIGNMENT, [source], root=tmp_path) != first
    assert release_manifest.inputs_hash(config, "01_immutable_updates", [source], root=tmp_path) != \
        release_manifest.inputs_hash(config, ASSIGNMENT, [source], root=tmp_path)  # other points
    (tmp_path / "nbgrader_config.py").write_text("c = 2\n")  # release code counts too
    assert release_manifest.inputs_hash(config, ASSIGNMENT, [source], root=tmp_path) != first


def test_the_manifest_keeps_every_assignments_hash(tmp_path):
    assert release_manifest.read(tmp_path) == {}
    release_manifest.record("b", "2", tmp_path)
    release_manifest.record("a", "1", tmp_path)
    assert release_manifest.read(tmp_path) == {"a": "1", "b": "2"}
    assert not (tmp_path / "assignments" / "a").exists()  # outside assignments/<a>/, nbgrader's output


def _nbgrader_must_not_run(*args, **kwargs):
    raise AssertionError("nbgrader ran for an unchanged assignment")


def test_an_unchanged_assignment_is_skipped_and_force_redoes_it(config, monkeypatch, capsys):
    current = release_manifest.inputs_hash(config, ASSIGNMENT, release._sources(config, ASSIGNMENT), REPO)
    monkeypatch.setattr(release_manifest, "read", lambda root=REPO: {ASSIGNMENT: current})
    monkeypatch.setattr(release, "generate", _nbgrader_must_not_run)
    assert release.release(config, [ASSIGNMENT]) == 0
    assert "unchanged since its last release" in capsys.readouterr().out
    # --force runs nbgrader; a failing run leaves assignments/ and the manifest as they were.
    failed = subprocess.CompletedProcess([], 1, "", "no nbgrader here")
    monkeypatch.setattr(release, "generate", lambda *args, **kwargs: failed)
    monkeypatch.setattr(release_manifest, "record", _nbgrader_must_not_run)
    assert release.release(config, [ASSIGNMENT], force=True) == 1


@pytest.mark.parametrize("changed", ["hash", "output"])
def test_a_changed_or_missing_release_is_not_skipped(config, monkeypatch, changed):
    current = release_manifest.inputs_hash(config, ASSIGNMENT, release._sources(config, ASSIGNMENT), REPO)
    recorded = {ASSIGNMENT: "0" * 64 if changed == "hash" else current}
    monkeypatch.setattr(release_manifest, "read", lambda root=REPO: recorded)
    if changed == "output":
        monkeypatch.setattr(release, "_released", lambda config, assignment: [REPO / "assignments" / "missing.ipynb"])
    assert not release._unchanged(config, ASSIGNMENT)


def test_the_committed_manifest_is_current(config):
    """A change to what an assignment's release is made from (its solutions, its points, the release code)
    is committed with its release: else every fresh clone's `autograder release` redoes it, and rewrites the
    tracked manifest. Run `autograder release` and commit assignments/ with the change."""
    recorded = release_manifest.read(REPO)
    stale = [a for a in config.assignments
             if recorded.get(a) != release_manifest.inputs_hash(config, a, release._sources(config, a), REPO)]
    assert not stale, f"assignments/release-manifest.json is stale for {stale}: run `autograder release` and commit"


def test_release_on_an_unchanged_clone_skips_everything_and_leaves_git_status_clean(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(clone)], check=True)
    completed = subprocess.run([sys.executable, "-m", "autograder", "release"], cwd=clone, capture_output=True,
                               text=True, timeout=1800)
    assert completed.returncode == 0, completed.stderr[-3000:]
    skipped = [line for line in completed.stdout.splitlines() if "unchanged since its last release" in line]
    assert len(skipped) == len(release_manifest.read(clone)), completed.stdout
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, check=True)
    assert status.stdout == "", status.stdout


def test_the_hash_follows_only_the_release_code_that_makes_the_released_notebooks(config, tmp_path):
    module = tmp_path / release_manifest.RELEASE_MODULE
    module.parent.mkdir(parents=True)
    text = (REPO / release_manifest.RELEASE_MODULE).read_text()
    module.write_text(text)
    first = release_manifest.inputs_hash(config, ASSIGNMENT, [], tmp_path, kit=tmp_path)
    assert set(release_manifest.RELEASED_BY) <= {
        line.split("(")[0].split(" = ")[0].removeprefix("def ") for line in text.splitlines()}, "every name exists"
    # The student package's data is made by the same module, and changes no released notebook.
    module.write_text(text.replace('"format": recorded.FORMAT', '"format": recorded.FORMAT, "new": 1'))
    assert module.read_text() != text
    assert release_manifest.inputs_hash(config, ASSIGNMENT, [], tmp_path, kit=tmp_path) == first
    module.write_text(text.replace('"generate_assignment", assignment, "--force",',
                                   '"generate_assignment", assignment, "--force", "--debug",', 1))
    assert module.read_text() != text
    assert release_manifest.inputs_hash(config, ASSIGNMENT, [], tmp_path, kit=tmp_path) != first
