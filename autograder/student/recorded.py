"""The recorded checks as data: a JSON document and an `.npz` of plain numeric arrays per assignment.

Nothing here can run code: values are JSON skeletons whose arrays live in
the `.npz`, read back with `allow_pickle=False`; only numeric dtypes are
written or accepted.

A value's skeleton is JSON (None, bool, int, str, lists) or one of
{"__tuple__": [...]}, {"__dict__": {...}}, {"__array__": i} (a NumPy array),
{"__scalar__": i} (a NumPy scalar, stored as a 0-d array), {"__key__": i,
"impl": name} (a typed PRNG key's data) and {"__float__": "nan"|"inf"|"-inf"}.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

# NumPy and the kit's checking code are imported where values are read or written, not with the package's
# index: the process of `autograder check` that starts one process per device count reads only the index.

DATA = Path(__file__).resolve().parent / "data"
FORMAT = 1
INDEX = "index.json"
_NUMERIC_KINDS = frozenset("biufc")
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


class RecordError(ValueError):
    """A value cannot be recorded, or a record cannot be read."""


def encode(value: Any, arrays: list[np.ndarray], path: str = "value") -> Any:
    """`value`'s skeleton; its arrays are appended to `arrays`."""
    import numpy as np

    from autograder.check.submission import TypedKey

    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, TypedKey):
        arrays.append(_numeric(np.asarray(value.data), path))
        return {"__key__": len(arrays) - 1, "impl": str(value.impl)}
    if isinstance(value, np.generic):
        arrays.append(_numeric(np.asarray(value), path))
        return {"__scalar__": len(arrays) - 1}
    if isinstance(value, np.ndarray):
        arrays.append(_numeric(np.array(value, copy=True), path))
        return {"__array__": len(arrays) - 1}
    if type(value) is tuple:
        return {"__tuple__": [encode(v, arrays, f"{path}[{i}]") for i, v in enumerate(value)]}
    if type(value) is list:
        return [encode(v, arrays, f"{path}[{i}]") for i, v in enumerate(value)]
    if type(value) is dict:
        if not all(type(k) is str for k in value):
            raise RecordError(f"{path} has a non-string key")
        return {"__dict__": {k: encode(v, arrays, f"{path}[{k!r}]") for k, v in value.items()}}
    raise RecordError(f"{path} is a {type(value).__module__}.{type(value).__qualname__}, which is not recorded")


def decode(skeleton: Any, arrays: list[np.ndarray]) -> Any:
    """The value `encode` recorded: NumPy arrays and scalars, TypedKeys, tuples, lists, dicts."""
    import numpy as np

    from autograder.check.submission import TypedKey

    if skeleton is None or type(skeleton) in (bool, int, float, str):
        return skeleton
    if type(skeleton) is list:
        return [decode(v, arrays) for v in skeleton]
    if type(skeleton) is dict and len(skeleton) in (1, 2):
        if "__tuple__" in skeleton:
            return tuple(decode(v, arrays) for v in _list(skeleton["__tuple__"]))
        if "__dict__" in skeleton and type(skeleton["__dict__"]) is dict:
            return {str(k): decode(v, arrays) for k, v in skeleton["__dict__"].items()}
        if "__array__" in skeleton:
            return np.array(_at(arrays, skeleton["__array__"]), copy=True)
        if "__scalar__" in skeleton:
            return _at(arrays, skeleton["__scalar__"])[()]
        if "__key__" in skeleton:
            return TypedKey(np.array(_at(arrays, skeleton["__key__"]), copy=True), str(skeleton.get("impl")))
        if "__float__" in skeleton and skeleton["__float__"] in ("nan", "inf", "-inf"):
            return float(skeleton["__float__"])
    raise RecordError(f"malformed recorded value: {str(skeleton)[:80]}")


RELEASED_CELLS = ".released-cells.json"


def write(directory: Path, assignment: str, record: dict, arrays: list[np.ndarray]) -> None:
    """`<assignment>.json` and `<assignment>.npz` in `directory`, byte for byte the same for the same record."""
    import numpy as np

    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{assignment}.json").write_text(json.dumps(record, indent=1, sort_keys=True, allow_nan=False) + "\n",
                                                   encoding="utf-8")
    with zipfile.ZipFile(directory / f"{assignment}.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        for i, array in enumerate(arrays):
            buffer = io.BytesIO()
            np.save(buffer, _numeric(array, f"array {i}"), allow_pickle=False)
            archive.writestr(zipfile.ZipInfo(f"a{i}.npy", date_time=_ZIP_DATE), buffer.getvalue(),
                             compress_type=zipfile.ZIP_DEFLATED)


def write_index(directory: Path, index: dict) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / INDEX).write_text(json.dumps(index, indent=1, sort_keys=True, allow_nan=False) + "\n",
                                   encoding="utf-8")


def write_released_cells(directory: Path, assignment: str, cells) -> None:
    """`<assignment>.released-cells.json`: the SHA-256 of each locked cell of the released notebooks
    (load.example_cells.ReleasedCells; digests, not code), so that `autograder check` skips the unchanged
    examples among a notebook's cells, as grading does."""
    directory.mkdir(parents=True, exist_ok=True)
    digests = {"examples": sorted(map(_digest, cells.examples)), "locked": sorted(map(_digest, cells.locked))}
    (directory / f"{assignment}{RELEASED_CELLS}").write_text(json.dumps(digests, indent=1) + "\n", encoding="utf-8")


def released_cells(assignment: str, sources: list[str], directory: Path = DATA):
    """The released cells among `sources` (a submission's cells), by the digests `write_released_cells` wrote;
    none (every cell runs) where they are missing or malformed."""
    from autograder.load.example_cells import ReleasedCells

    try:
        raw = json.loads((directory / f"{assignment}{RELEASED_CELLS}").read_text(encoding="utf-8"))
        examples, locked = set(raw["examples"]), set(raw["locked"])
    except (OSError, ValueError, KeyError, TypeError):
        return ReleasedCells()
    return ReleasedCells(frozenset(s for s in sources if _digest(s) in examples),
                         frozenset(s for s in sources if _digest(s) in locked))


def _digest(source: str) -> str:
    import hashlib

    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def read_index(directory: Path = DATA) -> dict:
    """{"format", "assignments": {assignment: {function: {prop: points}}}, "devices": {assignment: [counts]},
    "limits": {...}, "seed"}."""
    try:
        index = json.loads((directory / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise RecordError(f"{directory / INDEX}: {error}") from None
    if index.get("format") != FORMAT:
        raise RecordError(f"{directory / INDEX} has format {index.get('format')!r}, this package reads {FORMAT}")
    return index


def record_name(assignment: str, devices: int) -> str:
    """The name of `assignment`'s record made with `devices` CPU devices, where it has one per count."""
    return f"{assignment}.devices-{devices}"


def read(assignment: str, directory: Path = DATA, devices: int | None = None) -> tuple[dict, list[np.ndarray]]:
    """The record of `assignment` and its arrays (numeric only, no pickles): the one made with `devices` CPU
    devices where there is one, else the assignment's own."""
    import numpy as np

    name = assignment
    if devices is not None and (directory / f"{record_name(assignment, devices)}.json").is_file():
        name = record_name(assignment, devices)
    try:
        record = json.loads((directory / f"{name}.json").read_text(encoding="utf-8"))
        with np.load(directory / f"{name}.npz", allow_pickle=False) as archive:
            arrays = [_numeric(archive[f"a{i}"], f"a{i}") for i in range(len(archive.files))]
    except (OSError, ValueError, KeyError) as error:
        raise RecordError(f"{assignment}: {error}") from None
    if record.get("format") != FORMAT:
        raise RecordError(f"{assignment} has format {record.get('format')!r}, this package reads {FORMAT}")
    return record, arrays


def read_sentences(assignment: str, directory: Path | None = None) -> list[dict]:
    """The JSON of every record of `assignment` (one per device count where it has several), without its
    arrays: what learned_sentences needs, read without NumPy. Empty where there is none to read."""
    records, directory = [], directory or DATA
    for path in sorted(directory.glob(f"{assignment}.json")) + sorted(directory.glob(f"{assignment}.devices-*.json")):
        try:
            records.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return [record for record in records if isinstance(record, dict)]


def _numeric(array: Any, path: str) -> np.ndarray:
    import numpy as np

    if type(array) is not np.ndarray or array.dtype.kind not in _NUMERIC_KINDS or array.dtype.fields is not None:
        raise RecordError(f"{path} is not a plain numeric array")
    return array


def _at(arrays: list[np.ndarray], index: Any) -> np.ndarray:
    if type(index) is not int or not 0 <= index < len(arrays):
        raise RecordError(f"array reference {index!r} out of range")
    return arrays[index]


def _list(node: Any) -> list:
    if type(node) is not list:
        raise RecordError("malformed tuple")
    return node


class Package:
    """What the installed package knows: assignments, their functions and points, the time limits."""

    def __init__(self, directory: Path = DATA):
        self.directory = directory
        self.index = read_index(directory)
        self._records: dict[str, dict | None] = {}

    @property
    def assignments(self) -> list[str]:
        return sorted(self.index["assignments"])

    def functions_of(self, assignment: str) -> list[str]:
        return list(self.index["assignments"].get(assignment, {}))

    def functions_in_order(self, assignment: str) -> list[str]:
        """`assignment`'s functions in the order its record checks them, the suite's (the index keeps them by
        name), read without NumPy; by name where the record cannot be read (the checks then say why)."""
        functions = self.functions_of(assignment)
        try:
            checked = [check["function"] for check in (self._record(assignment) or {})["checks"]]
        except (KeyError, TypeError):
            return functions
        return sorted(functions, key=lambda function: checked.index(function) if function in checked else len(checked))

    def check_seconds(self, assignment: str) -> dict[str, float]:
        """The CPU time each function's checks took in a check of its own (the suites' table at release:
        student.exercise_halves); {} for a package released without them."""
        found = self.index.get("check_seconds")
        return seconds_of(found.get(assignment)) if isinstance(found, dict) else {}

    def _record(self, assignment: str) -> dict | None:
        """`assignment`'s record, its JSON only (no NumPy), read once; None if it cannot be read."""
        if assignment not in self._records:
            try:
                record = json.loads((self.directory / f"{assignment}.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                record = None
            self._records[assignment] = record if isinstance(record, dict) else None
        return self._records[assignment]

    def functions(self) -> list[str]:
        return [f for a in self.assignments for f in self.index["assignments"][a]]

    def assignment_of(self, function: str) -> str | None:
        for assignment in self.assignments:
            if function in self.index["assignments"][assignment]:
                return assignment
        return None

    def device_counts(self, assignment: str) -> tuple[int, ...]:
        """The CPU device counts grading checks `assignment` with (grading.toml [devices]); () for one device."""
        counts = self.index.get("devices", {}).get(assignment, ())
        return tuple(n for n in counts if type(n) is int and n > 0)

    @property
    def hint_level(self) -> str | None:
        """grading.toml's `check_hints` at release (None for a package released before hint levels)."""
        return self.index.get("hints")

    @property
    def call_seconds(self) -> float:
        return float(self.index["limits"]["call_seconds"])

    @property
    def submission_seconds(self) -> float:
        return float(self.index["limits"]["submission_seconds"])

    @property
    def load_seconds(self) -> float:
        return float(self.index["limits"]["load_seconds"])


def seconds_of(found: Any) -> dict[str, float]:
    """The entries of `found` that are a function's seconds (a number, not negative); {} if it is no table."""
    if not isinstance(found, dict):
        return {}
    return {name: float(seconds) for name, seconds in found.items()
            if type(seconds) in (int, float) and seconds >= 0 and isinstance(name, str)}
