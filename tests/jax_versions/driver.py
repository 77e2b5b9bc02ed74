"""Checks submissions with the installed student package, as `autograder check` does; run inside a student venv.

Not a test module: tests/test_jax_versions.py runs it with each venv's Python,
one process per JAX version, so JAX is imported once for all the cases. It
reads a JSON list of cases ({"id", "path", "assignment", "functions"}) from
the file named by its first argument and prints one JSON object: the JAX it
ran with and, per case, the score and, per check, the verdict and the
feedback. An assignment graded with several device counts is checked as
`autograder check` checks it, in one fresh process per count.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def _check(case: dict) -> dict:
    from autograder.load.submission_source import read
    from autograder.sandbox.inprocess import load_namespace
    from autograder.student import device_checks
    from autograder.student.checking import check_namespace
    from autograder.student.recorded import Package

    package = Package()
    functions = case.get("functions") or []
    counts = package.device_counts(case["assignment"])
    if counts:  # as `autograder check` does: one fresh process per device count grading uses
        arguments = ["--lang", "en", "check", case["path"], "--assignment", case["assignment"]]
        for function in functions:
            arguments += ["--exercise", function]
        result = device_checks.check_with_each_count(arguments, counts)
    else:
        namespace, report = load_namespace(read(Path(case["path"])), package.load_seconds)
        result = check_namespace(package, case["assignment"], namespace, report, set(functions) or None,
                                 name=case["id"])
    return {"score": result.score, "max_score": result.max_score, "notes": result.notes,
            "checks": [[c.function, c.prop, c.status, c.feedback] for c in result.checks]}


def main() -> None:
    cases = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    from autograder.student import jax_support

    problem = jax_support.problem()
    if problem is not None:
        print(json.dumps({"refused": problem.sentence("en")}))
        return
    import jax

    results = {case["id"]: _check(case) for case in cases}
    print(json.dumps({"jax": jax.__version__, "devices": jax.device_count(), "results": results}), flush=True)


if __name__ == "__main__":
    main()
    os._exit(0)  # as the student package's command ends: without tearing down JAX's CPU backend
