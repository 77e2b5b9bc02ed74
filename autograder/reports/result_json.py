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
