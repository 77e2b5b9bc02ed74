"""One batch worker: grade a single submission in the sandbox and write its results.json.

Run by autograder.batch as `python -m autograder.batch_worker PATH --results FILE ...`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder import grading_config
from autograder.grading import grade_submission
from autograder.reports import gradescope_json


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="autograder.batch_worker")
    parser.add_argument("path", type=Path)
    parser.add_argument("--name", required=True)
    parser.add_argument("--results", type=Path, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--assignment")
    parser.add_argument("--config", type=Path, default=grading_config.DEFAULT_PATH)
    parser.add_argument("--sandbox", choices=("default", "strict"), default="default")
    args = parser.parse_args(argv)
    config = grading_config.load(args.config)
    result = grade_submission(args.path, config, seed=args.seed, backend="strict" if args.sandbox == "strict" else "sandbox",
                              assignment=args.assignment, name=args.name)
    data = result.to_gradescope()
    data["extra_data"]["finished"] = True
    gradescope_json.write_json_atomically(data, args.results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
