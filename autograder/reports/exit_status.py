"""`--fail-under SCORE`: the exit status a CI job reads after `autograder grade`.

SCORE is a percentage, 0 to 100, of each submission's own maximum score
(its assignment's total in grading.toml). The status is 1 if any graded
submission scored below SCORE percent of its maximum, else 0:

- `--fail-under 100`: every submission must earn full marks (a solution
  repository's CI, or a student's own repository);
- `--fail-under 60`: every submission must reach 60 %;
- `--fail-under 0`: never fails on scores, but still fails when nothing was graded.

A submission whose maximum is 0 (its assignment was not recognised, so no
check ran) counts as 0 %, and so fails any SCORE above 0. A batch with no
submission at all fails whenever SCORE is given: a CI job that meant to
grade something and found nothing should not pass. Without --fail-under
(`fail_under=None`) the status is 0, as it always was: every submission
gets a result, and the results say what happened.

Scores are compared as recorded; a score within 1e-9 points of the
threshold counts as reaching it (rounding in sums of points).
"""

from __future__ import annotations

import argparse
import math

from autograder.reports.result_json import mapping, mappings, number

FAILED = 1
_TOLERANCE = 1e-9


def parse_fail_under(text: str) -> float:
    """argparse `type=` for --fail-under: a number from 0 to 100."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--fail-under takes a percentage from 0 to 100, got {text!r}") from None
    if not math.isfinite(value) or not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"--fail-under takes a percentage from 0 to 100, got {text!r}")
    return value


def percent(result: dict) -> float:
    """The submission's score as a percentage of its maximum (0 when its maximum is 0)."""
    score, maximum = _score(result)
    return 100.0 * score / maximum if maximum > 0 else 0.0


def below(results: list[dict], fail_under: float) -> list[dict]:
    """The results that score under `fail_under` percent of their maximum."""
    low = []
    for result in results:
        score, maximum = _score(result)
        if maximum <= 0 or score * 100.0 < fail_under * maximum - _TOLERANCE * 100.0:
            if maximum > 0 or fail_under > 0:
                low.append(result)
    return low


def exit_code(results: list[dict], fail_under: float | None) -> int:
    """0, or 1 if `fail_under` is given and a submission is below it (or there is no submission)."""
    if fail_under is None:
        return 0
    if not 0 <= fail_under <= 100:
        raise ValueError(f"fail_under must be a percentage from 0 to 100, got {fail_under!r}")
    if not results:
        return FAILED
    return FAILED if below(results, fail_under) else 0


def summary(results: list[dict], fail_under: float | None) -> str | None:
    """One line for the terminal saying why the status is 1, or None when it is 0."""
    if fail_under is None or exit_code(results, fail_under) == 0:
        return None
    if not results:
        return f"--fail-under {fail_under:g}: no submission was graded."
    low = below(results, fail_under)
    names = ", ".join(f"{_name(r)} ({percent(r):.4g}%)" for r in low[:10])
    more = f" and {len(low) - 10} more" if len(low) > 10 else ""
    return (f"--fail-under {fail_under:g}: {len(low)} of {len(results)} submission(s) below {fail_under:g}%: "
            f"{names}{more}.")


def _score(result: dict) -> tuple[float, float]:
    extra = mapping(result.get("extra_data"))
    tests = mappings(result.get("tests"))
    maximum = extra.get("max_score")
    if maximum is None:
        maximum = sum(number(t.get("max_score")) for t in tests if isinstance(t, dict))
    return number(result.get("score")), number(maximum)


def _name(result: dict) -> str:
    extra = mapping(result.get("extra_data"))
    return str(extra.get("submission") or extra.get("path") or "?")
