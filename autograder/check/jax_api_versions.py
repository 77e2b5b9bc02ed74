"""JAX APIs that came or went between releases: which JAX versions have each, and what to use instead.

Students write code on the JAX they have (the student package supports a
range: student/jax_support.py) and grading runs the pinned one, so code can
name an API that the JAX running it lacks: removed (`jax.tree_map`), or newer
than that JAX (`jax.set_mesh` on 0.5). JAX then raises a bare AttributeError
or ModuleNotFoundError; `hint` turns it into a sentence that names the API,
the versions that have it and the replacement that works on every supported
JAX. The table holds what students of these exercises meet (older tutorials,
newer docs); the availability was read off each release of the range.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import re
import sys

from autograder.catalog import messages


@dataclasses.dataclass(frozen=True)
class ApiChange:
    """`api` exists in JAX from `added` (None: long before the range) and before `removed` (None: still there)."""

    api: str
    added: str | None
    removed: str | None
    replacement: str  # code, the same in every language, that every JAX of the student package's range has

    def lacking_in(self, version: str) -> str | None:
        """Why JAX `version` lacks the API: "newer" (it came later), "removed" (it went by then); None if it has it."""
        found = parse_version(version)
        if self.added is not None and found < parse_version(self.added):
            return "newer"
        if self.removed is not None and found >= parse_version(self.removed):
            return "removed"
        return None


CHANGES = (
    ApiChange("jax.tree_map", None, "0.6.0", "jax.tree.map"),
    ApiChange("jax.tree_multimap", None, "0.3.16", "jax.tree.map"),
    ApiChange("jax.tree_leaves", None, "0.6.0", "jax.tree.leaves"),
    ApiChange("jax.tree_flatten", None, "0.6.0", "jax.tree.flatten"),
    ApiChange("jax.tree_unflatten", None, "0.6.0", "jax.tree.unflatten"),
    ApiChange("jax.tree_structure", None, "0.6.0", "jax.tree.structure"),
    ApiChange("jax.tree_transpose", None, "0.6.0", "jax.tree.transpose"),
    ApiChange("jax.experimental.host_callback", None, "0.8.0", "jax.debug.print"),
    ApiChange("jax.ops.index_update", None, "0.3.2", "x.at[...].set(...)"),
    ApiChange("jax.ops.index_add", None, "0.3.2", "x.at[...].add(...)"),
    ApiChange("jax.sharding.PositionalSharding", None, "0.7.0", "jax.sharding.NamedSharding"),
    ApiChange("jax.sharding.GSPMDSharding", None, "0.7.0", "jax.sharding.NamedSharding"),
    ApiChange("jax.sharding.use_mesh", None, "0.7.0", "jax.sharding.NamedSharding(mesh, spec)"),
    ApiChange("jax.lib.xla_bridge", None, "0.8.0", "jax.devices()"),
    ApiChange("jax.device_put_replicated", None, "0.10.0", "jax.device_put(x, jax.sharding.NamedSharding(mesh, spec))"),
    ApiChange("jax.device_put_sharded", None, "0.10.0", "jax.device_put(x, jax.sharding.NamedSharding(mesh, spec))"),
    ApiChange("jax.lax.pvary", "0.6.0", "0.10.0", "jax.shard_map(..., check_vma=False)"),
    ApiChange("jax.shard_map", "0.6.0", None, "jax.experimental.shard_map.shard_map"),
    ApiChange("jax.set_mesh", "0.7.0", None, "jax.sharding.NamedSharding(mesh, spec)"),
    ApiChange("jax.P", "0.7.0", None, "jax.sharding.PartitionSpec"),
    ApiChange("jax.lax.pcast", "0.8.0", None, "jax.shard_map(..., check_vma=False)"),
    ApiChange("jax.lax.axis_size", "0.6.1", None, "jax.device_count()"),
    ApiChange("jax.custom_remat", "0.11.0", None, "jax.checkpoint"),
    ApiChange("jax.Inline", "0.11.0", None, "jax.jit(f)"),
    ApiChange("jax.numpy.top_k", "0.11.1", None, "jax.lax.top_k"),
)
_BY_API = {change.api: change for change in CHANGES}

# How JAX and Python say that a name is not there; each gives the API's full name.
_MISSING = (
    re.compile(r"module '(jax[\w.]*)' has no attribute '(\w+)'"),
    re.compile(r"No module named '(jax[\w.]*)'"),
    re.compile(r"^(jax[\w.]+) (?:is|was) (?:deprecated|removed)"),
    # `from jax.sharding import PositionalSharding`: the name first, then its module.
    re.compile(r"cannot import name '(?P<name>\w+)' from '(?P<module>jax[\w.]*)'"),
)


def missing_api(message: str) -> str | None:
    """The full name of the JAX API an error says is not there (`jax.tree_map`), or None."""
    for pattern in _MISSING:
        found = pattern.search(message)
        if found:
            named = found.groupdict()
            return f"{named['module']}.{named['name']}" if named else ".".join(found.groups())
    return None


def change_for(api: str) -> ApiChange | None:
    """The table's entry for `api` or for the module it is in (`jax.lib.xla_bridge.get_backend`)."""
    parts = api.split(".")
    for end in range(len(parts), 1, -1):
        change = _BY_API.get(".".join(parts[:end]))
        if change is not None:
            return change
    return None


def hint(message: str) -> str | None:
    """The sentence for an error that names a JAX API the running JAX lacks, or None if the table has none."""
    api = missing_api(message)
    change = change_for(api) if api else None
    running = installed_version("jax", "jax") or "?"
    why = change.lacking_in(running) if change else None
    if change is None or why is None:
        return None
    return messages.text(f"api.{why}", api=change.api, added=change.added, removed=change.removed, running=running,
                         replacement=change.replacement)


def missing_in(version: str, messages_said: list[str]) -> list[ApiChange]:
    """The table's APIs that warnings or errors (`messages_said`) show a student's code uses and that JAX
    `version` lacks (removed by then, or newer): what grading on that JAX will fail on."""
    found: list[ApiChange] = []
    for said in messages_said:
        api = missing_api(said)
        change = change_for(api) if api else None
        if change is not None and change not in found and change.lacking_in(version):
            found.append(change)
    return found


def installed_version(distribution: str, module: str) -> str | None:
    """The version of `module` as this process imported it (its `__version__`), else of `distribution` as
    installed; None if neither: for JAX, the one that raised."""
    imported = sys.modules.get(module)
    found = getattr(imported, "__version__", None)
    if isinstance(found, str):
        return found
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def parse_version(version: str) -> tuple[int, ...]:
    """"0.4.38" -> (0, 4, 38); "0.9.0.1" -> (0, 9, 0, 1); "0.5.0.dev20250101" -> (0, 5, 0)."""
    numbers = []
    for part in version.split("."):
        match = re.match(r"\d+", part)
        if match is None:
            break
        numbers.append(int(match.group()))
        if match.group() != part:
            break
    return tuple(numbers)
