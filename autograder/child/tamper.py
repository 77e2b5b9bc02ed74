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
# The child's own grading code: every module of the child and protocol packages (found
# from the layout, so a new module is watched without a list to keep), with every
# attribute, the methods of its classes and the entries of its dispatch tables.
_OWN_PACKAGES = ("autograder.child", "autograder.protocol")


def own_modules() -> tuple[str, ...]:
    """The child-side modules whose contents the detector records: everything in child/ and protocol/."""
    import importlib
    import pkgutil

    names = []
    for package_name in _OWN_PACKAGES:
        package = importlib.import_module(package_name)
        names += [f"{package_name}.{info.name}" for info in pkgutil.iter_modules(package.__path__)]
    return tuple(sorted(names))


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """What the checks rely on, as recorded before student code ran; grouped by the table each entry lives in,
    so that the comparison after every request (find_and_undo) looks each table up once."""

    config: dict[str, Any]
    attributes: dict[str, dict[str, Any]]  # module -> {name: object}
    members: dict[tuple[str, str], dict[Any, Any]]  # (module, class or dict name) -> {key: object}


def take() -> Snapshot:
    """Record jax.config and the watched modules' attributes."""
    import importlib

    import jax

    # jax.config.values is live: it reflects updates, context managers aside.
    config = dict(jax.config.values)
    attributes: dict[str, dict[str, Any]] = {}
    members: dict[tuple[str, str], dict[Any, Any]] = {}
    own_names = own_modules()
    for module_name in (*_WATCHED_MODULES, *own_names):
        module = importlib.import_module(module_name)
        own = module_name in own_names
        recorded = attributes[module_name] = {}
        for name, value in vars(module).items():
            if isinstance(value, types.ModuleType) or (name.startswith("_") and not own):
                continue
            recorded[name] = value
            if own and isinstance(value, type) and value.__module__ == module_name:
                members[(module_name, name)] = dict(vars(value))
            elif own and type(value) is dict:
                members[(module_name, name)] = dict(value)
    return Snapshot(config, attributes, members)


def find_and_undo(snapshot: Snapshot) -> list[str]:
    """Compare with `snapshot`, restore every difference, and describe each one."""
    import importlib

    import jax

    changes = []
    config = jax.config.values  # a new dict at every access: once, not once per option
    for name, value in snapshot.config.items():
        current = config.get(name, _MISSING)
        if current is not value and current != value:
            changes.append(f"jax.config.{name} was changed from {value!r} to {current!r}")
            try:
                jax.config.update(name, value)
            except Exception:  # some options cannot be set after start-up; report anyway
                pass
            config = jax.config.values  # as live as before: an update may move other options too
    for module_name, recorded in snapshot.attributes.items():
        module = importlib.import_module(module_name)
        for name in _differences(vars(module), recorded):
            changes.append(f"{module_name}.{name} was replaced")
            setattr(module, name, recorded[name])
    for (module_name, owner_name), recorded in snapshot.members.items():
        owner = snapshot.attributes[module_name][owner_name]
        for key in _differences(vars(owner) if isinstance(owner, type) else owner, recorded):
            changes.append(f"{module_name}.{owner_name}[{key!r}] was replaced")
            if isinstance(owner, type):
                setattr(owner, key, recorded[key])
            else:
                owner[key] = recorded[key]
    return changes


def _differences(table, recorded: dict) -> list:
    """The keys of `recorded` whose object `table` no longer holds (thousands per request: one comprehension)."""
    get = table.get
    return [key for key, value in recorded.items() if get(key, _MISSING) is not value]


_MISSING = object()
