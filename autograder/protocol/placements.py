"""Where a program's results live: which devices hold which rows, as the clean-room runner saw them.

The runner runs an exported program on its own devices and reads each
result's placement from the array it computed (`sharding.devices_indices_map`),
so a placement is a fact established outside the student's process, never
what their process says. It crosses the runner's pipe as plain data:
per result leaf, one `[device id, first row, end row]` per device holding part
of it, where `null` rows mean the device holds the whole leaf (every row, or a
scalar).
"""

from __future__ import annotations

import dataclasses
from typing import Any

MAX_DEVICES = 64  # more devices than any grading runner has: a larger answer is refused


@dataclasses.dataclass(frozen=True)
class Placement:
    """One result's placement: `rows[device] = (start, stop)`, or None where that device holds all of it."""

    rows: dict[int, tuple[int, int] | None]

    @property
    def devices(self) -> frozenset[int]:
        """The devices holding some part of the result."""
        return frozenset(self.rows)

    def rows_per_device(self) -> dict[int, int | None]:
        """How many rows each device holds (None: the whole result)."""
        return {device: None if span is None else span[1] - span[0] for device, span in self.rows.items()}

    def to_wire(self) -> list[list[Any]]:
        return [[device, *(span if span is not None else (None, None))] for device, span in sorted(self.rows.items())]

    @classmethod
    def from_wire(cls, raw: Any) -> Placement:
        """Parse the runner's answer for one leaf; ValueError if it is not `[[int, int|None, int|None], ...]`."""
        if not isinstance(raw, list) or len(raw) > MAX_DEVICES:
            raise ValueError(f"a placement must be a list of at most {MAX_DEVICES} entries, got {type(raw).__name__}")
        rows: dict[int, tuple[int, int] | None] = {}
        for entry in raw:
            if not (isinstance(entry, list) and len(entry) == 3 and all(_is_int(v) or v is None for v in entry)
                    and _is_int(entry[0])):
                raise ValueError(f"a placement entry must be [device, start, stop], got {entry!r:.80}")
            device, start, stop = entry
            rows[device] = None if start is None or stop is None else (int(start), int(stop))
        return cls(rows)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def placement_of(array: Any) -> Placement:
    """The placement of a computed `jax.Array` (in the process that holds it: the runner)."""
    rows: dict[int, tuple[int, int] | None] = {}
    for device, index in array.sharding.devices_indices_map(array.shape).items():
        first = index[0] if index else slice(None)
        if first.start is None and first.stop is None:
            rows[int(device.id)] = None
        else:
            start, stop, _ = first.indices(array.shape[0])
            rows[int(device.id)] = (start, stop)
    return Placement(rows)
