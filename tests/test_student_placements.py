"""The student package judges where 10_parallel's results live, as the grader does, on the student's devices.

The release records how each check judges placements (`expect_placement`'s
spread, `assert_uses_collective`) on the placed call's step, never where the
solution's results lived; replay runs the student's function on the kernel's
own devices and judges the same way. Here: 10_parallel recorded and replayed
in a process with 4 CPU devices (the count its notebooks ask for), on the
corpus's placement mistakes, in English and Korean.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO

ASSIGNMENT = "10_parallel"
# corpus mistake -> its function (each leaves its whole result on device 0)
CASES = {
    "mistakes/convolve_on_devices_python_loop.py": "convolve_on_devices",
    "mistakes/shard_rows_no_sharding.py": "shard_rows",
}
# Judged as the student calls the function: corpus mistake -> its function and the sentence saying where its
# result is, and correct ways to place an array eagerly (each defines shard_rows).
AS_CALLED = {
    "mistakes/data_parallel_step_params_to_host.py": ("data_parallel_step", "check.placement_host"),
    "mistakes/shard_rows_batch_axis.py": ("shard_rows", "check.placement_axis"),
}
EAGER_CORRECT = ["correct/shard_rows_mesh_of_device_array.py", "correct/shard_rows_from_callback.py"]

_REPLAY = """
import json, sys, tempfile
from pathlib import Path
from autograder import grading_config
from autograder.catalog import messages
from autograder.check.submission import Submission
from autograder.integrations.release import STUDENT_SEED, record_one
from autograder.load.submission_source import read
from autograder.sandbox.inprocess import InProcessTransport, load_namespace
from autograder.student import learned_sentences, recorded, replay

root, assignment, files = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
data = Path(tempfile.mkdtemp())
record_one(assignment, grading_config.load(root / "grading.toml"), data, STUDENT_SEED, root)
record, arrays = recorded.read(assignment, data)
learned_sentences.learn_hints(record.get("hints", {}))
found = {}
for language in ("en", "ko"):
    with messages.using(language):
        for path in files:
            namespace, report = load_namespace(read(Path(path)), 60)
            submission = Submission(InProcessTransport(namespace, report, 30, 240), report.notes)
            found[f"{language}:{Path(path).name}"] = [[c.function, c.prop, c.passed, c.feedback]
                                                      for c in replay.replay(record, arrays, submission)]
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def replayed() -> dict[str, list]:
    """Each case's (and the solution's) replayed checks, by "<language>:<file name>"."""
    corpus = REPO / "tests" / "corpus" / ASSIGNMENT
    files = [str(corpus / case) for case in [*CASES, *AS_CALLED, *EAGER_CORRECT]]
    files.append(str(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"))
    environment = dict(os.environ, JAX_NUM_CPU_DEVICES="4", JAX_PLATFORMS="cpu", AUTOGRADER_JAX_CACHE="off")
    completed = subprocess.run([sys.executable, "-c", _REPLAY, str(REPO), ASSIGNMENT, *files], cwd=REPO,
                               env=environment, capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_solution_passes_every_replayed_check(replayed, language):
    failed = [check for check in replayed[f"{language}:{ASSIGNMENT}.ipynb"] if not check[2]]
    assert not failed, failed


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_result_on_the_wrong_devices_fails_its_placement_check_in_the_student_package(replayed, case, language):
    import tomllib

    from autograder.catalog import messages

    function = CASES[case]
    cases = tomllib.loads((REPO / "tests" / "corpus" / ASSIGNMENT / "cases.toml").read_text())
    declared = next(c for c in cases["mistake"] if c["file"] == case)
    checks = [check for check in replayed[f"{language}:{case.split('/')[-1]}"] if check[0] == function]
    assert sorted(prop for _, prop, passed, _ in checks if not passed) == sorted(declared["fails"]), checks
    feedback = next(text for _, prop, passed, text in checks if not passed)
    with messages.using(language):  # where the result is, and the exercise's sentence on why it matters
        said = [messages.text("check.placement_whole", device=0), messages.text(f"10_parallel.{function}.spread")]
    assert all(sentence in feedback for sentence in said), (said, feedback)


def _declared(case: str) -> dict:
    import tomllib

    cases = tomllib.loads((REPO / "tests" / "corpus" / ASSIGNMENT / "cases.toml").read_text())
    return next(c for c in cases["mistake"] if c["file"] == case)


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("case", sorted(AS_CALLED))
def test_a_result_on_the_host_or_the_wrong_axis_fails_its_placement_check_in_the_student_package(replayed, case,
                                                                                                  language):
    from autograder.catalog import messages

    function, key = AS_CALLED[case]
    checks = [check for check in replayed[f"{language}:{case.split('/')[-1]}"] if check[0] == function]
    assert sorted(prop for _, prop, passed, _ in checks if not passed) == sorted(_declared(case)["fails"]), checks
    feedback = next(text for _, prop, passed, text in checks if not passed)
    with messages.using(language):  # the sentence's first words after the call it names
        sentence = messages.text(key, call="\0", index=0, devices=4, axes='"batch"', axis="data", why="")
        said = sentence.split("\0")[1][:40]
    assert said in feedback, (said, feedback)


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("case", EAGER_CORRECT)
def test_an_array_placed_eagerly_on_the_data_mesh_passes_in_the_student_package(replayed, case, language):
    checks = [check for check in replayed[f"{language}:{case.split('/')[-1]}"] if check[0] == "shard_rows"]
    assert checks and all(passed for _, _, passed, _ in checks), checks
