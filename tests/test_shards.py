"""Grading on several machines: `grade --shard K/N` and `autograder merge` equal one run.

The main test grades a class of 24 mixed submissions (full, partial and stub
notebooks from benchmarks/submissions.py, one that is not JSON) once whole
and once as 3 shards run as separate processes in parallel, merges them and
compares everything but timings (benchmarks/shards_vs_one_run.py, which also
runs the same comparison on 200 submissions by hand). The rest checks what
the merge refuses, that a student's files stay in one shard, and the
job-array examples in docs/examples/sharded-grading/.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest
import yaml
from conftest import REPO, run_cli

from autograder.catalog import messages
from autograder.grade import merge, shards
from autograder.grade.batch import discover

sys.path.insert(0, str(REPO))  # benchmarks/ is a folder of scripts, importable from the repository's root
from benchmarks import shards_vs_one_run as compare  # noqa: E402

ASSIGNMENTS = ["01_immutable_updates", "02_where"]
PER_ASSIGNMENT = 12  # 12 students, each with both assignments: 24 submissions
COUNT = 3
SEED = 2026
EXAMPLES = REPO / "docs" / "examples" / "sharded-grading"
WORKFLOW = EXAMPLES / "github-actions-grade-class.yml"
SLURM = EXAMPLES / "slurm-grade-class.sh"


def _sandbox() -> str:
    from autograder.sandbox import os_isolation

    try:
        os_isolation.check_available(sys.executable)
    except os_isolation.IsolationUnavailable:
        return "process"
    return "os"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded whole (--jobs 2) and as 3 shards in parallel (separate processes), then merged."""
    root = tmp_path_factory.mktemp("shards")
    klass = compare.build_class(root / "class", PER_ASSIGNMENT, ASSIGNMENTS)
    (klass / "s011" / "02_where" / "02_where.ipynb").write_text('{"cells": [ not json')  # fails to load
    sandbox = _sandbox()
    compare.grade_whole(klass, root / "whole", SEED, 2, sandbox)
    outs = [root / f"shard{index}" for index in range(COUNT)]
    compare.grade_shards(klass, outs, SEED, 1, sandbox)
    compare.merge(outs, root / "merged")
    return root, klass, outs


def test_shards_merged_equal_one_run(graded):
    root, klass, outs = graded
    assert compare.differences(root / "whole", root / "merged") == []
    rows = compare._csv_rows(root / "merged" / "grades.csv")
    assert len(rows) == 2 * PER_ASSIGNMENT
    assert {row["assignment"] for row in rows} == set(ASSIGNMENTS)
    scores = {float(row["score"]) for row in rows}
    assert len(scores) > 2, "a mixed class: full, partial and zero scores"
    [broken] = [row for row in rows if row["submission"] == "s011__02_where"]
    assert float(broken["score"]) == 0
    kept = [json.loads((out / shards.MANIFEST).read_text())["submissions"] for out in outs]
    assert all(kept), "every shard graded someone (else this class does not test the merge)"


def test_a_students_files_stay_in_one_shard(graded):
    _, klass, outs = graded
    where: dict[str, set[int]] = {}
    for index, out in enumerate(outs):
        for entry in json.loads((out / shards.MANIFEST).read_text())["submissions"]:
            where.setdefault(entry["student"], set()).add(index)
    assert len(where) == PER_ASSIGNMENT and all(len(found) == 1 for found in where.values())
    # And from discovery alone: by the student, whatever else is in the class.
    items = discover([klass], ASSIGNMENTS)
    for count in (2, 3, 7):
        chosen = [shards.Selection(shards.Shard(k, count))(items) for k in range(count)]
        assert sorted(i.name for part in chosen for i in part) == sorted(i.name for i in items)
        for k, part in enumerate(chosen):
            assert all(shards.shard_of(item.student, count) == k for item in part)
        fewer = [item for item in items if item.student != "s000"]
        assert shards.Selection(shards.Shard(1, count))(fewer) == [i for i in chosen[1] if i.student != "s000"]


def test_a_shard_is_named_as_in_the_whole_class(tmp_path):
    """Two files whose names are the same ignoring case are both hashed, even when they land in different shards."""
    for name in ("Kim", "kim"):
        (tmp_path / f"{name}.py").write_text("x = 1\n")
    items = discover([tmp_path])
    assert all("__" in item.name for item in items)
    parts = [shards.Selection(shards.Shard(k, 2))(items) for k in range(2)]
    assert sorted(i.name for part in parts for i in part) == sorted(i.name for i in items)


def _copy(source, target):
    shutil.copytree(source, target, symlinks=True)
    return target


def _edit_manifest(out, change):
    path = out / shards.MANIFEST
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _refused(shard_dirs, out):
    with pytest.raises(merge.MergeError) as raised:
        merge.merge(shard_dirs, out)
    assert not out.exists(), "a refused merge writes nothing"
    return str(raised.value)


def test_merge_refuses_a_student_in_two_shards(graded, tmp_path):
    _, _, outs = graded
    taken = json.loads((outs[0] / shards.MANIFEST).read_text())["submissions"][0]
    other = _copy(outs[1], tmp_path / "shard1")
    shutil.copytree(outs[0] / taken["name"], other / taken["name"])
    _edit_manifest(other, lambda data: data["submissions"].append(taken))
    text = _refused([outs[0], other, outs[2]], tmp_path / "merged")
    assert text == messages.text("merge.overlap", student=taken["student"], name=taken["name"], first=outs[0],
                                 other=other)


def test_merge_refuses_the_same_shard_twice_and_a_missing_one(graded, tmp_path):
    _, _, outs = graded
    again = _copy(outs[1], tmp_path / "again")
    assert "is given twice" in _refused([outs[0], outs[1], again, outs[2]], tmp_path / "merged")
    assert "Shard(s) 2 of 3 are missing" in _refused([outs[0], outs[1]], tmp_path / "merged")


def test_merge_refuses_shards_graded_with_different_seeds(graded, tmp_path):
    _, _, outs = graded
    other = _copy(outs[2], tmp_path / "shard2")

    def reseed(data):
        data["seed"] = data["settings"]["seed"] = SEED + 1

    _edit_manifest(other, reseed)
    for entry in json.loads((other / shards.MANIFEST).read_text())["submissions"]:
        path = other / entry["name"] / "results.json"
        result = json.loads(path.read_text())
        result["extra_data"]["seed"] = result["extra_data"]["settings"]["seed"] = SEED + 1
        path.write_text(json.dumps(result))
    text = _refused([outs[0], outs[1], other], tmp_path / "merged")
    assert text == messages.text("merge.different_seeds", first=outs[0], first_seed=SEED, other=other,
                                 other_seed=SEED + 1)
    # A manifest that says one seed over results of another is refused as well.
    _edit_manifest(other, lambda data: data.update(seed=SEED))
    assert "is not the one the shard's manifest lists" in _refused([outs[0], outs[1], other], tmp_path / "merged")


def test_merge_refuses_different_settings_and_an_unfinished_shard(graded, tmp_path):
    _, _, outs = graded
    other = _copy(outs[1], tmp_path / "shard1")
    _edit_manifest(other, lambda data: data["settings"].update(sandbox="elsewhere"))
    assert "with different settings (sandbox)" in _refused([outs[0], other, outs[2]], tmp_path / "merged")
    (other / shards.MANIFEST).unlink()
    assert "is not a finished shard's out dir" in _refused([outs[0], other, outs[2]], tmp_path / "merged")


def test_merge_follows_no_link_and_never_writes_into_a_shard(graded, tmp_path):
    _, _, outs = graded
    link = tmp_path / "link"
    link.symlink_to(outs[0], target_is_directory=True)
    assert "symbolic link" in _refused([link, outs[1], outs[2]], tmp_path / "merged")
    other = _copy(outs[1], tmp_path / "shard1")
    entry = json.loads((other / shards.MANIFEST).read_text())["submissions"][0]["name"]
    (other / entry / "results.json").unlink()
    (other / entry / "results.json").symlink_to(outs[1] / entry / "results.json")
    assert "symbolic link" in _refused([outs[0], other, outs[2]], tmp_path / "merged")
    with pytest.raises(merge.MergeError, match="is one of the shards' out dirs"):
        merge.merge(outs, outs[0])


def test_merge_command_exits_2_and_says_why(graded, tmp_path):
    _, _, outs = graded
    completed = run_cli("merge", str(outs[0]), "--out", str(tmp_path / "merged"))
    assert completed.returncode == 2 and "are missing" in completed.stderr, completed.stderr


def test_shard_needs_a_fixed_seed_and_a_well_formed_k_of_n(tmp_path):
    env = {key: value for key, value in os.environ.items() if key != "AUTOGRADER_SEED"}
    completed = subprocess.run([sys.executable, "-m", "autograder", "grade", str(tmp_path), "--out",
                                str(tmp_path / "out"), "--shard", "0/2", "--sandbox", "process"],
                               cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    assert completed.returncode == 2 and "--shard needs a seed every shard shares" in completed.stderr
    assert not (tmp_path / "out").exists()
    for bad in ("2/2", "-1/2", "1", "a/b", "0/0"):
        with pytest.raises(shards.ShardError, match="counting from 0"):
            shards.parse(bad)
    assert shards.parse(" 1/4 ") == shards.Shard(1, 4)


# --- the job-array examples ----------------------------------------------------------------------

def test_github_actions_example_is_a_valid_matrix_workflow():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as True
    assert "workflow_dispatch" in triggers
    grade, merge_job = workflow["jobs"]["grade"], workflow["jobs"]["merge"]
    count = int(workflow["env"]["SHARDS"])
    assert grade["strategy"]["matrix"]["shard"] == list(range(count))
    assert grade["strategy"]["fail-fast"] is False
    grading = " ".join(step.get("run", "") for step in grade["steps"])
    assert "autograder grade" in grading and '--shard "$SHARD/$SHARDS"' in grading and '--seed "$SEED"' in grading
    uploads = [step for step in grade["steps"] if str(step.get("uses", "")).startswith("actions/upload-artifact@")]
    assert uploads and uploads[0]["with"]["name"] == "shard-${{ matrix.shard }}"
    assert merge_job["needs"] == "grade"
    downloads = [step for step in merge_job["steps"]
                 if str(step.get("uses", "")).startswith("actions/download-artifact@")]
    assert downloads and downloads[0]["with"]["pattern"] == "shard-*"
    assert any("autograder merge shards/shard-*" in step.get("run", "") for step in merge_job["steps"])
    for job in (grade, merge_job):
        assert job["runs-on"] and all("uses" in step or "run" in step for step in job["steps"])
    actionlint = shutil.which("actionlint")
    if actionlint:  # only where it is installed: no network at test time
        completed = subprocess.run([actionlint, str(WORKFLOW)], capture_output=True, text=True, timeout=120)
        assert completed.returncode == 0, completed.stdout


def test_slurm_example_grades_each_array_task_as_a_shard_and_merges_all(tmp_path):
    """The script run as each array task, with `sbatch` and the kit replaced by recorders."""
    text = SLURM.read_text()
    assert subprocess.run(["bash", "-n", str(SLURM)]).returncode == 0
    count = int(next(line.split("=")[1].split()[0] for line in text.splitlines() if line.startswith("SHARDS=")))
    assert f"#SBATCH --array=0-{count - 1}" in text
    tools = tmp_path / "bin"
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    tools.mkdir()
    log = tmp_path / "calls.log"
    for path, name in ((tools / "sbatch", "sbatch"), (tmp_path / ".venv" / "bin" / "autograder", "autograder")):
        path.write_text(f'#!/bin/bash\nprintf "{name}" >> "{log}"; printf " %q" "$@" >> "{log}"; echo >> "{log}"\n')
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    for task in range(count):
        env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}", "SLURM_SUBMIT_DIR": str(tmp_path),
               "SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_JOB_ID": "4242", "SLURM_CPUS_PER_TASK": "2"}
        completed = subprocess.run(["bash", str(SLURM)], env=env, capture_output=True, text=True, timeout=60)
        assert completed.returncode == 0, completed.stderr
    calls = log.read_text().splitlines()
    grades = [call for call in calls if call.startswith("autograder grade")]
    assert sorted(grades) == sorted(f"autograder grade submitted --out out/shard-{k} --shard {k}/{count} --seed 2026 "
                                    "--jobs 2 --sandbox os" for k in range(count))
    [submitted] = [call for call in calls if call.startswith("sbatch")]
    assert "--dependency=afterany:4242" in submitted
    shard_dirs = " ".join(f"out/shard-{k}" for k in range(count))
    assert f"merge {shard_dirs} --out out/class --junit-xml out/class/junit.xml".replace(" ", "\\ ") in submitted


def test_an_empty_shard_says_so_and_merges(tmp_path):
    """A shard none of the class hashes to is no broken path: one sentence, exit 0, a record merge accepts."""
    klass = tmp_path / "class"
    klass.mkdir()
    students = [name for name in (f"s{i:03d}" for i in range(50)) if shards.shard_of(name, 4) != 0][:3]
    for student in students:
        (klass / f"{student}.py").write_text("x = 1\n")
    outs = [tmp_path / f"shard{k}" for k in range(4)]
    runs = [run_cli("grade", str(klass), "--out", str(out), "--seed", str(SEED), "--shard", f"{k}/4",
                    "--assignment", "01_immutable_updates", "--sandbox", _sandbox())
            for k, out in enumerate(outs)]
    empty = runs[0]
    assert empty.returncode == 0, empty.stderr[-2000:]
    said = messages.text("shard.empty", shard="0/4", total=len(students))
    assert said in empty.stderr, empty.stderr
    assert messages.text("batch.nothing_graded") not in empty.stdout + empty.stderr
    assert json.loads((outs[0] / shards.MANIFEST).read_text())["submissions"] == []
    assert all(run.returncode == 0 for run in runs), [run.stderr[-1000:] for run in runs]
    merged = run_cli("merge", *map(str, outs), "--out", str(tmp_path / "merged"))
    assert merged.returncode == 0, merged.stderr[-2000:]
    assert len(compare._csv_rows(tmp_path / "merged" / "grades.csv")) == len(students)
