"""Where a function's results live: which devices hold which rows, read from the arrays it returned.

A placement is read by the kit from each result leaf (`sharding.devices_indices_map`) in the process
that holds the result: the student's process for a function called as the student calls it
(child/executor.py), or the clean-room runner for an exported program. It crosses a pipe as plain data,
per result leaf: `{"rows": [[device id, first row, end row], ...], "axes": [...], "host": bool}`, where
`null` rows mean the device holds the whole leaf (every row, or a scalar), `axes` names the mesh axes
its rows are split over (the spec fixes "data" for 10_parallel's mesh), and `host` marks a leaf that is
not a `jax.Array` at all (a NumPy array or a Python number: on no device).
"""

from __future__ import annotations

import dataclasses
from typing import Any

MAX_DEVICES = 64  # more devices than any grading runner has: a larger answer is refused
MAX_AXES = 8  # mesh axes one dimension may be split over; more is refused
MAX_AXIS_NAME = 64  # characters of an axis name kept


@dataclasses.dataclass(frozen=True)
class Placement:
    """One result's placement: `rows[device] = (start, stop)`, or None where that device holds all of it.

    `axes`: the mesh axes its rows are split over (empty when it is not a mesh's sharding, e.g. `pmap`'s).
    `on_host`: the result is not a `jax.Array` (NumPy, a Python number), so no device holds it.
    """

    rows: dict[int, tuple[int, int] | None]
    axes: tuple[str, ...] = ()
    on_host: bool = False

    @property
    def devices(self) -> frozenset[int]:
        """The devices holding some part of the result."""
        return frozenset(self.rows)

    def rows_per_device(self) -> dict[int, int | None]:
        """How many rows each device holds (None: the whole result)."""
        return {device: None if span is None else span[1] - span[0] for device, span in self.rows.items()}

    def to_wire(self) -> dict[str, Any]:
        rows = [[device, *(span if span is not None else (None, None))] for device, span in sorted(self.rows.items())]
        return {"rows": rows, "axes": list(self.axes), "host": self.on_host}

    @classmethod
    def from_wire(cls, raw: Any) -> Placement:
        """Parse one leaf's answer; ValueError unless it is `{"rows": [[int, int|None, int|None], ...],
        "axes": [str, ...], "host": bool}`."""
        if not isinstance(raw, dict):
            raise ValueError(f"a placement must be a mapping, got {type(raw).__name__}")
        entries, axes, host = raw.get("rows"), raw.get("axes", []), raw.get("host", False)
        if not isinstance(entries, list) or len(entries) > MAX_DEVICES:
            raise ValueError(f"a placement's rows must be a list of at most {MAX_DEVICES} entries")
        if not (isinstance(axes, list) and len(axes) <= MAX_AXES and all(isinstance(a, str) for a in axes)):
            raise ValueError(f"a placement's axes must be a list of at most {MAX_AXES} names")
        if not isinstance(host, bool):
            raise ValueError("a placement's host must be true or false")
        rows: dict[int, tuple[int, int] | None] = {}
        for entry in entries:
            if not (isinstance(entry, list) and len(entry) == 3 and all(_is_int(v) or v is None for v in entry)
                    and _is_int(entry[0])):
                raise ValueError(f"a placement entry must be [device, start, stop], got {entry!r:.80}")
            device, start, stop = entry
            rows[device] = None if start is None or stop is None else (int(start), int(stop))
        return cls(rows, tuple(a[:MAX_AXIS_NAME] for a in axes), host)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def placement_of(leaf: Any) -> Placement:
    """The placement of one result leaf, in the process that holds it; a leaf that is no `jax.Array` is on the
    host (a function that returns `np.asarray(...)` or `jax.device_get(...)` has left every device)."""
    import jax

    if not isinstance(leaf, jax.Array):
        return Placement({}, on_host=True)
    return _on_devices(leaf)


def _on_devices(leaf: Any) -> Placement:
    """The placement of a `jax.Array`: which rows each device holding part of it holds, and the mesh axes."""
    rows: dict[int, tuple[int, int] | None] = {}
    for device, index in leaf.sharding.devices_indices_map(leaf.shape).items():
        first = index[0] if index else slice(None)
        if first.start is None and first.stop is None:
            rows[int(device.id)] = None
        else:
            start, stop, _ = first.indices(leaf.shape[0])
            rows[int(device.id)] = (start, stop)
    return Placement(rows, _row_axes(leaf))


def _row_axes(leaf: Any) -> tuple[str, ...]:
    """The mesh axes a `NamedSharding` splits the rows over (its spec's first entry); none for other shardings."""
    spec = getattr(leaf.sharding, "spec", None)
    if spec is None or not hasattr(leaf.sharding, "mesh") or len(spec) == 0 or spec[0] is None:
        return ()
    first = spec[0] if isinstance(spec[0], tuple) else (spec[0],)
    return tuple(str(name) for name in first)
