"""The incumbent: real `nbgrader autograde` on a course directory holding the same submissions.

The course directory is made from the kit's own nbgrader_config.py (loaded
as a sub-config, so its execution settings and check-cell handling apply),
with only the directories moved into the temporary course. The solutions
are its source notebooks; `nbgrader generate_assignment` records them in the
gradebook (not timed); then every submission is placed in submitted/ and
`nbgrader autograde` runs once per assignment (timed). The check cells read
AUTOGRADER_SEED, so they draw the same hidden inputs as `autograder grade`.
The kit's sandboxed check-cell grading (GradeCheckCellsInSandbox) is switched
off: the incumbent is nbgrader as it comes, grading in the student's kernel.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from autograder.integrations.release import nbgrader_environment

ROOT = Path(__file__).resolve().parent.parent
KIT_CONFIG = ROOT / "nbgrader_config.py"


class Course:
    def __init__(self, root: Path, seed: int):
        self.root = root
        self.seed = seed
        self.db_url = f"sqlite:///{root / 'gradebook.db'}"
        root.mkdir(parents=True, exist_ok=True)
        (root / "nbgrader_config.py").write_text(
            "# The kit's settings, with this temporary course's directories.\n"
            "c = get_config()  # noqa: F821\n"
            f"load_subconfig({str(KIT_CONFIG)!r})  # noqa: F821\n"
            f"c.CourseDirectory.root = {str(root)!r}\n"
            "c.CourseDirectory.source_directory = 'source'\n"
            "c.CourseDirectory.release_directory = 'release'\n"
            f"c.CourseDirectory.db_url = {self.db_url!r}\n"
            "# The incumbent is plain nbgrader: check cells graded in the student's kernel.\n"
            "c.GradeCheckCellsInSandbox.enabled = False\n")

    def add_assignment(self, assignment: str) -> None:
        """Source notebook from solutions/, recorded in the gradebook by generate_assignment."""
        source = self.root / "source" / assignment
        source.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "solutions" / assignment / f"{assignment}.ipynb", source / f"{assignment}.ipynb")
        self._nbgrader("generate_assignment", assignment, "--force")

    def submission_path(self, student: str, assignment: str) -> Path:
        return self.root / "submitted" / student / assignment / f"{assignment}.ipynb"

    def autograde(self, assignment: str) -> float:
        """Autograde every submission of `assignment`; returns the wall time in seconds."""
        started = time.perf_counter()
        self._nbgrader("autograde", assignment, "--create", "--force")
        return time.perf_counter() - started

    def scores(self, assignment: str) -> dict[str, float]:
        """student -> total score nbgrader recorded."""
        from nbgrader.api import Gradebook

        with Gradebook(self.db_url) as gradebook:
            return {submission.student_id: float(submission.score)
                    for submission in gradebook.assignment_submissions(assignment)}

    def _nbgrader(self, *args: str) -> None:
        env = dict(nbgrader_environment(), AUTOGRADER_SEED=str(self.seed))
        completed = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=self.root, env=env,
                                   capture_output=True, text=True)
        if completed.returncode != 0:
            raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n"
                               f"{completed.stdout[-2000:]}{completed.stderr[-3000:]}")


def check_kit_config() -> None:
    """load_subconfig ignores a missing file silently: say so instead."""
    if not KIT_CONFIG.exists():
        raise SystemExit(f"{KIT_CONFIG} is missing: the benchmark runs nbgrader with the kit's settings")
