"""Detecting and undoing changes student code makes to the grading machinery.

Before student code runs, the child records `jax.config` and the identity of
every function the checks rely on. After the submission loads and after each
request it compares, reports what changed, and puts the originals back. The
parent zeroes the check whose request saw the change, because its answer may
have been shaped by it.
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any

# Modules whose public callables the checks use, directly or through JAX.
_WATCHED_MODULES = ("jax", "jax.lax", "jax.random", "jax.monitoring", "jax.stages", "jax.export",
                    "jax.tree_util", "numpy", "numpy.testing")


@dataclasses.dataclass(frozen=True)
class Snapshot:
    config: dict[str, Any]
    attributes: dict[tuple[str, str], Any]  # (module, name) -> object


def take() -> Snapshot:
    """Record jax.config and the watched modules' attributes."""
    import importlib

    import jax

    # jax.config.values is live: it reflects updates, context managers aside.
    config = dict(jax.config.values)
    attributes = {}
    for module_name in _WATCHED_MODULES:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if not name.startswith("_") and not isinstance(value, types.ModuleType):
                attributes[(module_name, name)] = value
    return Snapshot(config, attributes)


def find_and_undo(snapshot: Snapshot) -> list[str]:
    """Compare with `snapshot`, restore every difference, and describe each one."""
    import importlib

    import jax

    changes = []
    for name, value in snapshot.config.items():
        current = jax.config.values.get(name, _MISSING)
        if current is not value and current != value:
            changes.append(f"jax.config.{name} was changed from {value!r} to {current!r}")
            try:
                jax.config.update(name, value)
            except Exception:  # some options cannot be set after start-up; report anyway
                pass
    for (module_name, name), value in snapshot.attributes.items():
        module = importlib.import_module(module_name)
        current = vars(module).get(name, _MISSING)
        if current is not value:
            changes.append(f"{module_name}.{name} was replaced")
            setattr(module, name, value)
    return changes


_MISSING = object()
