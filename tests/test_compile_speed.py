"""What a check's processes ask XLA for, and how `autograder check` keeps its own cache.

sandbox.compile_speed: flags that change code generation only. An unknown
flag aborts XLA at start, so the elemental emitters' flag is asked for only
from the jaxlib that is known to have it; a value the user set is kept.
compilation_cache: "check" is one short process at a time, capped once at start.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO

from autograder.sandbox import compilation_cache, compile_speed


@pytest.mark.parametrize("jaxlib, asked", [
    ("0.5.0", {compile_speed.LEVEL_ZERO, compile_speed.ONE_CODEGEN_PIECE}),  # no elemental emitters flag yet
    ("0.5.3", {compile_speed.LEVEL_ZERO, compile_speed.ONE_CODEGEN_PIECE, compile_speed.ELEMENTAL_EMITTERS}),
    ("0.10.2", {compile_speed.LEVEL_ZERO, compile_speed.ONE_CODEGEN_PIECE, compile_speed.ELEMENTAL_EMITTERS}),
])
def test_the_elemental_emitters_are_asked_for_only_where_the_jaxlib_has_the_flag(jaxlib, asked):
    assert set(compile_speed.flags(jaxlib).split()) == asked


def test_a_flag_the_user_set_keeps_its_value_and_the_others_are_added():
    environment = {"XLA_FLAGS": "--xla_cpu_use_fusion_emitters=true --xla_force_host_platform_device_count=2"}
    compile_speed.add_to_environment(environment, "0.10.2")
    flags = environment["XLA_FLAGS"].split()
    assert "--xla_cpu_use_fusion_emitters=true" in flags and compile_speed.ELEMENTAL_EMITTERS not in flags
    assert compile_speed.LEVEL_ZERO in flags and "--xla_force_host_platform_device_count=2" in flags
    compile_speed.add_to_environment(environment, "0.10.2")
    assert environment["XLA_FLAGS"].split() == flags, "asked twice, added twice"


def test_the_installed_jaxlib_starts_with_the_flags_it_is_given():
    environment = dict(os.environ, XLA_FLAGS=compile_speed.flags(), JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, "-c", "import jax.numpy as jnp; print(float(jnp.sin(jnp.ones(3)).sum()))"],
                          cwd=REPO, env=environment, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert abs(float(done.stdout) - 3 * 0.8414709848) < 1e-5


def test_checks_cache_is_cut_to_its_cap_once_oldest_entries_first(tmp_path, monkeypatch):
    folder = tmp_path / "check" / compilation_cache.machine_kind()
    folder.mkdir(parents=True)
    for age, name in enumerate(["newest", "middle", "oldest"]):
        entry = folder / f"{name}-cache"
        entry.write_bytes(b"x" * 400)
        os.utime(entry, (1_000_000 - age, 1_000_000 - age))
    monkeypatch.setattr(compilation_cache, "MAX_BYTES", 900)
    monkeypatch.setattr(compilation_cache, "_point_jax_at", lambda directory, max_bytes: seen.append(max_bytes))
    monkeypatch.setenv(compilation_cache.ENVIRONMENT_VARIABLE, str(tmp_path))
    seen: list = []
    assert compilation_cache.enable("check") == folder
    assert sorted(p.name for p in folder.iterdir()) == ["middle-cache", "newest-cache"]
    assert seen == [None], "JAX itself must not cap (and scan) check's cache at every write"
