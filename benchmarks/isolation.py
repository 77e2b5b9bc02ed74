"""What the OS sandbox costs per child: the time to get a loaded child, with and without it.

    .venv/bin/python benchmarks/isolation.py [--children 20]

For each sandbox mode (`os`, the default of `autograder grade`, and the weaker
`process`) one zygote is started, then a trivial submission is loaded into
`--children` fresh children one after another, as a grading worker does for
each submission: the time from asking for a child to the child's answer to
its load request, then closing it. Prints one JSON line: the median and the
maximum per mode, and the OS sandbox's extra cost per child.
Needs root and bubblewrap for the `os` mode.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import grading_config  # noqa: E402
from autograder.sandbox.parent import SandboxTransport  # noqa: E402
from autograder.sandbox.zygote_client import Zygote  # noqa: E402


def child_seconds(mode: str, children: int, submission: Path) -> list[float]:
    """Seconds per loaded child in `mode`, the zygote started beforehand and not counted."""
    limits = grading_config.load().limits
    zygote = Zygote(mode=mode)
    try:
        zygote.wait_ready()
        times = []
        for _ in range(children):
            started = time.perf_counter()
            with SandboxTransport(submission, limits, mode=mode, zygote=zygote) as transport:
                report = transport.start()
                if report.problems:
                    raise RuntimeError(f"{mode}: {report.notes}")
            times.append(time.perf_counter() - started)
        return times
    finally:
        zygote.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/isolation.py", description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        submission = Path(work) / "trivial.py"
        submission.write_text("import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x)\n")
        result = {}
        for mode in ("os", "process"):
            times = child_seconds(mode, args.children, submission)
            result[mode] = {"median_seconds": statistics.median(times), "max_seconds": max(times)}
    result["os_extra_per_child_seconds"] = result["os"]["median_seconds"] - result["process"]["median_seconds"]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
