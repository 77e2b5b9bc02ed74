"""How often the corpus mistakes' feedback names the real cause first, and how often it asserts a false one.

Grades every mistake of tests/corpus/ (or of the assignments named with
--assignment) in each language, as tests/test_corpus.py does, and prints:

- named first: among the mistakes that declare their cause (`cause` or
  `cause_text` in cases.toml), the share whose first failed check says that
  cause before any other hint (target: at least 90%); a case with a
  `cause_gap` is a recorded miss;
- false causes: the mistakes whose feedback asserts a cause their code does
  not have: a cause the case lists in `not_causes`, or a known-mistake
  sentence ("the values are exactly what ... gives") other than its own
  (target: 0).

Each figure is printed for the cases written from the curriculum's list of
mistakes ("curriculum") and for those modelled on real code ("real code":
cases.toml's `models`) separately, then for all. An assignment graded with
several device counts (grading.toml [devices]) is graded in sandbox
processes that start with each count, as tests/test_corpus.py does.

The definitions are tests/corpus_causes.py's. Run:
    .venv/bin/python scripts/corpus_hint_accuracy.py [--assignment 08_scan_purity ...] [--lang en ko] [-v]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from corpus_cases import MistakeCase, mistakes  # noqa: E402
from corpus_causes import false_causes, names_cause_first  # noqa: E402

from autograder import grading_config  # noqa: E402
from autograder.catalog import messages  # noqa: E402
from autograder.grade.pipeline import GradingOptions, grade_submission  # noqa: E402

SEED = 20261121  # tests/conftest.py's


@dataclasses.dataclass
class Tally:
    """One language's figures."""

    declared: int = 0  # mistakes that declare their cause
    named_first: int = 0  # of those, the first hint names it
    graded: int = 0  # every mistake graded
    false: int = 0  # mistakes whose feedback asserts a false cause
    misses: list[str] = dataclasses.field(default_factory=list)
    false_cases: list[str] = dataclasses.field(default_factory=list)


def judge(case: MistakeCase, config, language: str, tally: Tally) -> None:
    """Grade `case` in `language` and count it."""
    messages.choose(language)
    sandbox = "process" if config.device_counts(case.assignment) else "inprocess"
    result = grade_submission(case.file, config, GradingOptions(seed=SEED, sandbox=sandbox,
                                                                assignment=case.assignment,
                                                                functions={case.function}))
    with messages.hints_at(config.hint_level("grade")):
        named = names_cause_first(result, case)
        wrong = false_causes(result, case)
    tally.graded += 1
    if case.names_a_cause:
        tally.declared += 1
        tally.named_first += named
        if not named:
            tally.misses.append(case.id)
    if wrong:
        tally.false += 1
        tally.false_cases.append(f"{case.id}: {', '.join(wrong)}")


def _sum(tallies) -> Tally:
    total = Tally()
    for tally in tallies:
        for field in ("declared", "named_first", "graded", "false"):
            setattr(total, field, getattr(total, field) + getattr(tally, field))
    return total


def report(language: str, name: str, tally: Tally, *, verbose: bool) -> None:
    """One line of figures for `name`'s cases, and with `verbose` its misses and false causes."""
    share = tally.named_first / tally.declared if tally.declared else 0.0
    print(f"[{language}] {name}: first hint names the real cause: {tally.named_first} of {tally.declared} mistakes "
          f"that declare it ({share:.0%}; {tally.declared} of {tally.graded} declare one); feedback asserting a "
          f"false cause: {tally.false} of {tally.graded} mistakes graded")
    if verbose:
        for miss in tally.misses:
            print(f"  cause not named first: {miss}")
        for false in tally.false_cases:
            print(f"  false cause: {false}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", nargs="*", help="only these assignments' mistakes")
    parser.add_argument("--lang", nargs="*", default=["en", "ko"], help="the languages to grade in")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the misses and the false causes")
    args = parser.parse_args(argv)
    config = grading_config.load()
    cases = [c for c in mistakes() if not args.assignment or c.assignment in args.assignment]
    for language in args.lang:
        tallies = {"curriculum": Tally(), "real code": Tally()}
        for case in cases:
            judge(case, config, language, tallies["real code" if case.models else "curriculum"])
        for name, tally in [*tallies.items(), ("all", _sum(tallies.values()))]:
            report(language, name, tally, verbose=args.verbose and name != "all")
    messages.choose(None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
