"""How the student package's replayed checks compare with the grader on the corpus.

    .venv/bin/python scripts/student_replay_agreement.py [--data DIR] [--assignments A ...]

For every assignment: the solution notebook (must pass every check), the
released stub (must fail every check), every corpus mistake (the grader's
verdict is its cases.toml `fails`, which tests/test_corpus.py holds the
grader to) and every correct alternative (the grader gives full marks).
Prints each disagreement: a check the replay passes where the grader fails
it ("missed"), or fails where the grader passes it ("stricter"). With
--data, uses the records of a student distribution's wheel data directory;
otherwise records each assignment first (about a minute for all).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import grading_config  # noqa: E402
from autograder.check.submission import Submission  # noqa: E402
from autograder.load.submission_source import read  # noqa: E402
from autograder.sandbox.inprocess import InProcessTransport, load_namespace  # noqa: E402
from autograder.student import recorded, replay  # noqa: E402


def replayed(record, arrays, path: Path, functions=None) -> dict[tuple[str, str], tuple[bool, str]]:
    source = read(path)
    namespace, report = load_namespace(source, 60)
    submission = Submission(InProcessTransport(namespace, report, 30, 240), report.notes)
    return {(c.function, c.prop): (c.passed, c.feedback) for c in replay.replay(record, arrays, submission, functions)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="a data directory written by the student distribution")
    parser.add_argument("--assignments", nargs="*")
    args = parser.parse_args()
    config = grading_config.load()
    assignments = args.assignments or config.assignments
    data = args.data
    if data is None:
        from autograder.integrations.release import record_student_data

        data = Path(tempfile.mkdtemp(prefix="student-data-"))
        record_student_data(config, data, assignments)
    disagreements = 0
    for assignment in assignments:
        record, arrays = recorded.read(assignment, data)
        everything = {(c["function"], c["prop"]) for c in record["checks"]}
        solution = replayed(record, arrays, ROOT / "solutions" / assignment / f"{assignment}.ipynb")
        stub = replayed(record, arrays, ROOT / "assignments" / assignment / f"{assignment}.ipynb")
        lines = []
        lines += [f"  solution fails {k[0]}: {k[1]}: {v[1][:200]}" for k, v in solution.items() if not v[0]]
        lines += [f"  stub passes {k[0]}: {k[1]}" for k, v in stub.items() if v[0]]
        cases = tomllib.loads((ROOT / "tests" / "corpus" / assignment / "cases.toml").read_text(encoding="utf-8"))
        for case in cases.get("mistake", []):
            function = case["function"]
            got = replayed(record, arrays, ROOT / "tests" / "corpus" / assignment / case["file"], {function})
            grader_fails = {(function, p) for p in case["fails"]}
            for key in sorted(k for k in everything if k[0] == function):
                passed, feedback = got[key]
                if passed and key in grader_fails:
                    lines.append(f"  missed   {case['file']}: {key[1]}")
                elif not passed and key not in grader_fails:
                    lines.append(f"  stricter {case['file']}: {key[1]}: {feedback[:200]}")
        for case in cases.get("correct", []):
            got = replayed(record, arrays, ROOT / "tests" / "corpus" / assignment / case["file"],
                           set(case["functions"]))
            lines += [f"  stricter {case['file']} (correct): {k[1]}: {v[1][:200]}" for k, v in got.items() if not v[0]]
        disagreements += len(lines)
        print(f"{assignment}: {len(lines)} disagreement(s)")
        print("\n".join(line.replace("\n", " / ") for line in lines))
        sys.stdout.flush()
    print(f"total: {disagreements} disagreement(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
