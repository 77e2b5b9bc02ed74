"""Checks on where results live: split by rows over every device, or whole on every device.

They judge a sharding by what it means (docs/curriculum.md, 10_parallel):
which devices hold a result, how many of its rows each holds and the mesh
axis they are split over, never by comparing sharding objects (a
`jax.make_mesh` mesh has explicit axis types, so equal placements may compare
unequal). The placements are read by the kit from the arrays the function
returned, called as the student calls it (protocol.placements), and the
device count is the grader's (`Submission.devices`).
"""

from __future__ import annotations

from typing import Sequence

from autograder.catalog import messages
from autograder.check.failure import fail
from autograder.protocol.placements import Placement

SPREADS = ("rows", "replicated", "any")


def assert_spread(placements: Sequence[Placement], spread: str, *, devices: int, call: str, why: str,
                  axis: str | None = None) -> None:
    """Every output leaf is placed as `spread` says over all `devices` devices.

    Args:
        placements: one per output leaf (`Submission.placed_call`: the function called as the student calls it).
        spread: "rows" (each device holds its own block of rows/devices rows), "replicated" (each device
            holds all of it) or "any" (not checked: a check that needs only the values and the program).
        devices: how many devices the grader gave the program.
        call: how feedback names the call.
        why: the exercise's sentence on why the placement matters.
        axis: for "rows", the mesh axis the spec names for the split (10_parallel: "data"); None: any
            split counts (`pmap`'s has no mesh axis).

    Raises:
        AssertionError: the student reads which devices hold which rows, and what was expected.
    """
    if spread not in SPREADS:
        raise ValueError(f"spread is {spread!r}; expected one of {SPREADS}")
    if spread == "any":
        return
    for index, placement in enumerate(placements):
        fields = dict(call=call, index=index, devices=devices, held=_held(placement), why=why)
        if placement.on_host:  # checked first: "held by 0 of the devices" would not say why
            raise fail(messages.text("check.placement_host", call=call, index=index, devices=devices, why=why))
        if placement.devices != frozenset(range(devices)):
            raise fail(messages.text("check.placement_devices", count=len(placement.devices), **fields))
        counts = set(placement.rows_per_device().values())
        if spread == "replicated" and counts != {None}:
            raise fail(messages.text("check.placement_replicated", **fields))
        if spread == "rows" and not _one_block_each(placement, devices):
            raise fail(messages.text("check.placement_rows", **fields))
        if spread == "rows" and axis is not None and devices > 1 and placement.axes != (axis,):
            named = ", ".join(f'"{name}"' for name in placement.axes) or messages.text("check.placement_no_axis")
            raise fail(messages.text("check.placement_axis", call=call, index=index, axes=named, axis=axis, why=why))


def _one_block_each(placement: Placement, devices: int) -> bool:
    """Each device holds its own block of rows, all blocks the same size, together every row once."""
    spans = list(placement.rows.values())
    if devices == 1:
        return True  # one device holds it all, which is its one block
    if any(span is None for span in spans):
        return False
    blocks = sorted(span for span in spans if span is not None)
    size = blocks[0][1] - blocks[0][0]
    return size > 0 and all(stop - start == size for start, stop in blocks) and all(
        blocks[k][1] == blocks[k + 1][0] for k in range(len(blocks) - 1)) and blocks[0][0] == 0


def _held(placement: Placement) -> str:
    parts = [messages.text("check.placement_whole", device=device) if span is None
             else messages.text("check.placement_span", device=device, start=span[0], stop=span[1])
             for device, span in sorted(placement.rows.items())]
    return messages.text("check.placement_separator").join(parts)
