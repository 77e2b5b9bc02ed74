"""The benchmark runs end to end: two submissions of one assignment, both graders, the floor and check.

The full benchmark (benchmarks/run.py, `make bench`) is not part of CI; this
smoke run proves that its one command still works, nbgrader side included.
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO


def test_benchmark_smoke_run(tmp_path):
    out = tmp_path / "benchmark.json"
    completed = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "run.py"), "--n", "2", "--assignments", "02_where",
         "--floor-repeats", "1", "--small-batch", "2", "--small-batch-assignment", "02_where", "--json", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "targets:" in completed.stdout and "nbgrader autograde" in completed.stdout, completed.stdout
    summary = json.loads(out.read_text())
    throughput = summary["throughput"]
    assert throughput["submissions"] == 2 and throughput["unfinished"] == 0
    assert throughput["autograder_per_second"] > 0 and throughput["nbgrader_per_second"] > 0
    floor = summary["per_submission"]["per_assignment"]["02_where"]
    assert floor["floor_seconds"] > 0 and floor["full_median_seconds"] > 0
    check = summary["check_seconds"]["02_where"]
    assert check["cold_seconds"] > 0 and check["new_seed_seconds"] > 0 and check["check_cell_seconds"] > 0
    assert set(check["check_cell_per_exercise"]) == {"sum_of_positive_numbers", "selu", "masked_mean", "safe_log"}
    assert "a check cell in a running kernel" in completed.stdout
    assert summary["memory_peak_mib"]["sandbox_peak_rss_mb"] > 0
    assert {t["what"].split(" ")[0] for t in summary["targets"]} >= {"throughput", "autograder", "every"}
    graded = summary["raw"]["autograder"]["submissions"]
    assert {g["kind"] for g in graded} == {"full", "partial"}
    assert max(g["score"] for g in graded) == 17, "the full solution earns every point"
    small = summary["small_batch"]
    assert small["submissions"] == 2 and small["autograder_wall_seconds"] > 0 and small["nbgrader_wall_seconds"] > 0
    isolation = summary["isolation"]
    assert isolation["os"]["median_seconds"] > 0 and isolation["process"]["median_seconds"] > 0
    assert "OS sandbox per child" in completed.stdout and "small batch" in completed.stdout
    progress = summary["progress"]
    assert 0 < progress["plain_microseconds"] and 0 < progress["terminal_microseconds"]
    assert "progress reporting per submission" in completed.stdout


def test_breakdown_smoke_run_splits_check_time_and_warm_compiles_less(tmp_path):
    out = tmp_path / "breakdown.json"
    completed = subprocess.run([sys.executable, str(REPO / "benchmarks" / "breakdown.py"), "04_static_args",
                                "--json", str(out)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "04_static_args" in completed.stdout
    runs = json.loads(out.read_text())["04_static_args"]
    for run in runs.values():
        parts = run["seconds"]
        assert set(parts) == {"start-up", "imports", "tracing", "lowering", "compiling", "of which cache reads", "rest"}
        assert all(seconds >= 0 for seconds in parts.values())
        assert sum(v for k, v in parts.items() if k != "of which cache reads") <= run["wall_seconds"] + 0.05
    # The warm run loads what the cold one compiled: the check's compilation cache works.
    assert runs["warm"]["seconds"]["of which cache reads"] > 0
    assert runs["warm"]["seconds"]["compiling"] < runs["cold"]["seconds"]["compiling"] / 2
