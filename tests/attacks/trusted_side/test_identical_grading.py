"""`merge` and `--resume` join or reuse results only when everything that can change them is equal.

Both compare the grading settings a result records (grade/result_provenance.py). They once left out
grading.toml's [sandbox] limits (two shards graded under different memory limits merged, and six
identical honest submissions got 18 or 0), the kit's code (the recorded kit version was the constant
0.1.0, so `--resume` after a change to the kit reused results the new code grades differently) and
the versions of Python, JAX, jaxlib and numpy. Here: shards graded under different [sandbox] limits
are refused with a sentence naming grading.toml; the settings hold the versions installed; and a real
`--resume` with a changed copy of the kit grades again, with the new code's feedback.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys

import pytest
from conftest import REPO, course_config

from autograder import grading_config
from autograder.grade import merge, shards
from autograder.grade.result_provenance import KIT_PACKAGE, grading_settings, kit_digest
from autograder.grade.run_options import RunOptions

SEED = 7
ASSIGNMENT = "01_immutable_updates"
STUB = "def set_element(x, index, value):\n    raise NotImplementedError()\n"
OLD_SENTENCE = "is not implemented yet: replace"
NEW_SENTENCE = "is still the handed-out stub: replace"


def _settings(folder, config_text: str) -> dict:
    """What `grade --shard` records for a course whose grading.toml is `config_text`."""
    folder.mkdir()
    config = grading_config.load(course_config(folder, config_text))
    return shards.run_settings(RunOptions(config, SEED, "os"))


def _shard(index: int, settings: dict) -> merge.ShardOutput:
    return merge.ShardOutput(path=REPO / f"shard{index}", index=index, count=2, seed=SEED, settings=settings,
                             class_size=2, class_digest="same class",
                             listed=(merge.Listed(index, f"s{index}", f"s{index}"),), results=({},),
                             identity=(0, index))


def test_merge_refuses_shards_graded_under_different_sandbox_limits(tmp_path):
    text = (REPO / "grading.toml").read_text()
    lower = text.replace("memory_mb = 3072", "memory_mb = 1024")
    assert lower != text
    usual, other = _settings(tmp_path / "usual", text), _settings(tmp_path / "other", lower)
    with pytest.raises(merge.MergeError) as refused:
        merge.check_together([_shard(0, usual), _shard(1, other)])
    assert "grading_toml" in str(refused.value)
    merge.check_together([_shard(0, usual), _shard(1, _settings(tmp_path / "same", text))])  # equal: joined


def test_the_settings_name_the_python_jax_jaxlib_and_numpy_that_graded(tmp_path):
    settings = _settings(tmp_path / "course", (REPO / "grading.toml").read_text())
    assert settings["python"] == platform.python_version()
    for package in ("jax", "jaxlib", "numpy"):
        assert settings[package] == importlib.metadata.version(package)
    assert settings["kit"] == kit_digest()


def test_a_worker_records_the_settings_the_parent_compares(tmp_path):
    """Workers get grading.toml from the parent as JSON (RunOptions): what they record must be what the parent
    computes, or `--resume` would grade everything again."""
    (tmp_path / "course").mkdir()
    config = grading_config.load(course_config(tmp_path / "course", (REPO / "grading.toml").read_text()))
    in_worker = RunOptions.from_json(RunOptions(config, SEED, "os").to_json())
    recorded = grading_settings(in_worker.config, SEED, ASSIGNMENT, "os", in_worker.hints)
    assert recorded == grading_settings(config, SEED, ASSIGNMENT, "os", None)


def test_the_kit_digest_follows_its_code_not_its_version_number(tmp_path):
    copy = shutil.copytree(KIT_PACKAGE, tmp_path / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    before = kit_digest(copy)
    assert before == kit_digest()
    messages = copy / "catalog" / "messages.py"
    messages.write_text(messages.read_text().replace(OLD_SENTENCE, NEW_SENTENCE))
    kit_digest.cache_clear()
    assert kit_digest(copy) != before


def _grade(kit, config, batch, out, *extra) -> subprocess.CompletedProcess:
    # This copy of the kit, not the installed one, nor a checkout in the working directory (`-m` imports from there).
    environment = dict(os.environ, PYTHONPATH=str(kit))
    return subprocess.run([sys.executable, "-m", "autograder", "--config", str(config), "grade", str(batch),
                           "--out", str(out), "--seed", str(SEED), "--assignment", ASSIGNMENT, *extra],
                          env=environment, cwd=kit, capture_output=True, text=True, timeout=900)


def test_resume_grades_again_once_the_kit_changed(tmp_path):
    kit = tmp_path / "kit"
    copy = shutil.copytree(KIT_PACKAGE, kit / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "course").mkdir()
    config = course_config(tmp_path / "course", (REPO / "grading.toml").read_text())
    batch = tmp_path / "batch"
    batch.mkdir()
    (batch / f"ana_{ASSIGNMENT}.py").write_text(STUB)
    first = _grade(kit, config, batch, tmp_path / "out")
    assert first.returncode == 0, first.stderr[-3000:]
    [result] = (tmp_path / "out").glob("*/results.json")
    assert OLD_SENTENCE in result.read_text()
    messages = copy / "catalog" / "messages.py"
    messages.write_text(messages.read_text().replace(OLD_SENTENCE, NEW_SENTENCE))
    resumed = _grade(kit, config, batch, tmp_path / "out", "--resume")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    feedback = json.loads(result.read_text())
    assert NEW_SENTENCE in json.dumps(feedback) and OLD_SENTENCE not in json.dumps(feedback), resumed.stderr[-3000:]
    assert feedback["extra_data"]["settings"]["kit"] == kit_digest(copy)
