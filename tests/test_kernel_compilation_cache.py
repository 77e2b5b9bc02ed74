"""A notebook kernel's own JAX cache (compilation_cache.enable_private), for check cells run again and again.

Each test runs in a fresh Python process: JAX decides once per process
whether it uses a cache, and these tests change that decision.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from conftest import REPO

# A kernel as a student's: it compiled its own cells before the first check cell ran.
_KERNEL = """
import json, os, sys
import jax, jax.numpy as jnp
from jax import monitoring
from autograder.sandbox import compilation_cache

hits = []
monitoring.register_event_listener(lambda event, **_: hits.append(event) if event.endswith("cache_hits") else None)

def run_again():  # a new closure every call, as a student's eager lax.fori_loop body is
    body = lambda i, x: x * 1.5 + i
    return jax.lax.fori_loop(0, 3, body, jnp.float32(1.0))

jax.jit(lambda x: x + 1)(1.0)  # the notebook's own cells, before any check cell
"""


def _kernel(script: str, **environment: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "AUTOGRADER_JAX"))}
    env.update(environment)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_KERNEL) + textwrap.dedent(script)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_a_check_run_again_loads_what_its_last_run_compiled_and_the_directory_goes_with_the_process():
    seen = _kernel("""
        directory = compilation_cache.enable_private()
        first = float(run_again())
        hits_after_first = len(hits)
        second = float(run_again())
        print(json.dumps({"directory": str(directory), "entries": len(os.listdir(directory)),
                          "again": str(compilation_cache.enable_private()), "values": [first, second],
                          "hits": [hits_after_first, len(hits)]}))
    """)
    assert seen["entries"] > 0 and seen["again"] == seen["directory"]
    assert seen["values"][0] == seen["values"][1]
    assert seen["hits"][0] == 0 and seen["hits"][1] >= 1  # the second run compiled nothing
    assert not os.path.exists(seen["directory"])  # removed when the kernel exited


def test_a_cache_the_user_chose_is_kept(tmp_path):
    seen = _kernel("""
        print(json.dumps({"private": str(compilation_cache.enable_private()),
                          "directory": jax.config.jax_compilation_cache_dir}))
    """, JAX_COMPILATION_CACHE_DIR=str(tmp_path))
    assert seen == {"private": "None", "directory": str(tmp_path)}


def test_no_cache_when_the_kits_cache_is_off():
    seen = _kernel("""
        print(json.dumps({"private": str(compilation_cache.enable_private()),
                          "directory": jax.config.jax_compilation_cache_dir}))
    """, AUTOGRADER_JAX_CACHE="off")
    assert seen == {"private": "None", "directory": None}


def test_no_cache_under_nbgraders_autograde():
    seen = _kernel("""
        print(json.dumps({"private": str(compilation_cache.enable_private()),
                          "directory": jax.config.jax_compilation_cache_dir}))
    """, NBGRADER_EXECUTION="autograde")
    assert seen == {"private": "None", "directory": None}
