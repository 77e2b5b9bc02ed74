"""Reading a results.json field by field, trusting nothing about its shape.

The reports read results.json files that a crashed run may have cut short or
an earlier kit version wrote differently: each accessor returns a value of
the type the caller works with, or an empty one.
"""

from __future__ import annotations

import math
from typing import Any


def mapping(value: object) -> dict[str, Any]:
    """`value` if it is a dict, else {}."""
    return value if isinstance(value, dict) else {}


def mappings(value: object) -> list[dict[str, Any]]:
    """The dicts in `value` if it is a list, else []."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def number(value: object, default: float = 0.0) -> float:
    """`value` as a finite float: numbers and numeric strings; anything else (bools, NaN, inf, None) is `default`."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return float(default)
    try:
        parsed = float(value)
    except ValueError:
        return float(default)
    return parsed if math.isfinite(parsed) else float(default)


def test_status(test: dict[str, Any]) -> str:
    """A results.json test's status: "passed", "failed" or "not_checked".

    Gradescope's own field holds "passed" or "failed" only; a check not
    checked (its values were wrong) is "failed" there, with
    extra_data.outcome "not_checked". Without a status, the score decides.
    """
    status = test.get("status")
    if status not in ("passed", "failed"):
        status = "passed" if number(test.get("score")) >= number(test.get("max_score")) else "failed"
    if status == "failed" and mapping(test.get("extra_data")).get("outcome") == "not_checked":
        return "not_checked"
    return status


def check_id(test: dict[str, Any]) -> str:
    """A results.json test's id, "<function>: <property>" in English whatever the feedback's language.

    Its "name" is for people (in the language of its feedback); the id is
    extra_data.check, or the name in results written before the id existed.
    """
    check = mapping(test.get("extra_data")).get("check")
    return check if isinstance(check, str) and check else str(test.get("name") or "")
