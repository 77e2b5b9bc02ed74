"""What the clean-room runner establishes about an exported program, as it crosses back to the grader.

The runner parses the program (MLIR's own parser, `cleanroom.module_walk`)
and walks its operations: names come from the parsed operations, never from
the module's text, whose debug locations, names and string attributes a
student can fill with anything. `from_wire` trusts nothing about the shape
of what arrives: every field is type-checked and capped, so a runner that was
subverted can at worst send facts about some other program, which then still
has to compute the right values.
"""

from __future__ import annotations

import dataclasses
from typing import Any

MAX_OPERATION_NAMES = 512
MAX_NAME_CHARS = 64
# StableHLO has one loop operation for lax.while_loop, fori_loop and scan.
LOOP_CONSTRUCTS = frozenset({"while", "scan"})
# The JAX constructs that operations lower from, as the suites ask for them.
CONSTRUCTS_BY_OPERATION = {"case": frozenset({"cond"}), "if": frozenset({"cond"}), "while": LOOP_CONSTRUCTS}
COLLECTIVES = frozenset({"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute",
                         "collective_broadcast"})


class FactsError(ValueError):
    """Facts from the runner that are not well-formed; the message names the field."""


@dataclasses.dataclass(frozen=True)
class ProgramFacts:
    """What a function's exported program is made of.

    `primitives`: the operations it holds (dialect dropped: "while", "add",
    "custom_call") and the JAX constructs they lower from ("cond", "while",
    "scan"); `equation_count`: how many operations, in every function of the
    module; `largest_value_elements`: the most elements of any value the
    program computes (an intermediate, an argument or a result);
    `custom_call_targets`: what its custom calls name; `nr_devices`: how many
    devices it was exported for; `operation_counts`: how many operations of
    each kind (dialect dropped), sorted by name: what a loop unrolled at trace
    time repeats shows in its own kinds, whatever other operations a program
    adds or leaves out.
    """

    primitives: frozenset[str]
    equation_count: int
    largest_value_elements: int = 0
    custom_call_targets: frozenset[str] = frozenset()
    nr_devices: int = 1
    operation_counts: tuple[tuple[str, int], ...] = ()

    @property
    def collectives(self) -> frozenset[str]:
        """The cross-device operations it holds (all_reduce, all_gather, ...)."""
        return self.primitives & COLLECTIVES

    def to_wire(self) -> dict:
        return {"operations": sorted(self.primitives)[:MAX_OPERATION_NAMES], "equation_count": self.equation_count,
                "largest_value_elements": self.largest_value_elements,
                "custom_call_targets": sorted(self.custom_call_targets)[:MAX_OPERATION_NAMES],
                "nr_devices": self.nr_devices,
                "operation_counts": [[name, count] for name, count in self.operation_counts[:MAX_OPERATION_NAMES]]}

    @classmethod
    def from_wire(cls, raw: Any) -> "ProgramFacts":
        if not isinstance(raw, dict):
            raise FactsError(f"program facts must be a JSON object, not {type(raw).__name__}")
        return cls(primitives=_names(raw, "operations"), equation_count=_count(raw, "equation_count"),
                   largest_value_elements=_count(raw, "largest_value_elements"),
                   custom_call_targets=_names(raw, "custom_call_targets"), nr_devices=_count(raw, "nr_devices"),
                   operation_counts=_counts_by_name(raw.get("operation_counts")))


def _names(raw: dict, field: str) -> frozenset[str]:
    value = raw.get(field)
    if not isinstance(value, list) or len(value) > MAX_OPERATION_NAMES:
        raise FactsError(f"{field} must be a list of at most {MAX_OPERATION_NAMES} names")
    if not all(isinstance(name, str) and len(name) <= MAX_NAME_CHARS for name in value):
        raise FactsError(f"{field} must hold names of at most {MAX_NAME_CHARS} characters")
    return frozenset(value)


def _count(raw: dict, field: str) -> int:
    value = raw.get(field)
    if type(value) is not int or value < 0:
        raise FactsError(f"{field} must be a non-negative integer, got {value!r}")
    return value


def _counts_by_name(value: Any) -> tuple[tuple[str, int], ...]:
    """[[name, count], ...] as sorted pairs; each name once, each count a non-negative integer."""
    if not isinstance(value, list) or len(value) > MAX_OPERATION_NAMES:
        raise FactsError(f"operation_counts must be a list of at most {MAX_OPERATION_NAMES} [name, count] pairs")
    pairs = {}
    for pair in value:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                and len(pair[0]) <= MAX_NAME_CHARS and type(pair[1]) is int and pair[1] >= 0) or pair[0] in pairs:
            raise FactsError(f"operation_counts must hold distinct [name, count] pairs, got {str(pair)[:80]}")
        pairs[pair[0]] = pair[1]
    return tuple(sorted(pairs.items()))
