"""Write autograder/suites/lowered.toml: how many programs each function's checks compile, for a clone's check.

`autograder check` of a whole notebook runs in two processes that take the
exercises costliest first (student/exercise_halves.py). The student package
reads each function's count from its record; a clone reads this table,
counted the same way: the solutions' checks recorded as a release records
them. Assignments graded with several device counts are checked once per
count, not in two halves, and are left out.

Run after changing a suite or a solution:  .venv/bin/python scripts/write_lowered_table.py
(tests/test_student_dist.py says when the table no longer matches what a release records.)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import grading_config  # noqa: E402
from autograder.integrations import release  # noqa: E402
from autograder.student import exercise_halves, recording  # noqa: E402

HEADER = """\
# How many programs JAX lowers for each function's checks, counted while the solutions' checks are recorded
# as a release records them (student/recording.py): `autograder check` in a clone takes the costliest first
# in its two processes (student/exercise_halves.py). Written by scripts/write_lowered_table.py.
"""


def main() -> int:
    config = grading_config.load()
    sections = []
    for assignment in config.assignments:
        if config.device_counts(assignment):
            continue
        record, _ = recording.record_assignment(assignment, config,
                                                release.solution_notebook(assignment, config.course.root),
                                                release.STUDENT_SEED)
        lines = [f"{function} = {count}" for function, count in sorted(record["lowered"].items())]
        sections.append(f"\n[{assignment}]\n" + "\n".join(lines) + "\n")
    table = ROOT / "autograder" / "suites" / exercise_halves.LOWERED_TABLE
    table.write_text(HEADER + "".join(sections), encoding="utf-8")
    print(f"wrote {table.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
