"""The benchmark's summary (the JSON) and its table (what run.py prints)."""

from __future__ import annotations

# The targets of the benchmark, on a 2-core machine.
THROUGHPUT_RATIO = 10.0  # autograder grade / nbgrader autograde, at least
FLOOR_RATIO = 2.0  # a full solution's wall time / the floor, at most
# A student's waits on a full solution notebook, at most: `autograder check` in a new process with an
# empty compilation cache (cold) and with a new seed after that; one check cell re-run in a running kernel.
CHECK_COLD_SECONDS = 2.0
CHECK_NEW_SEED_SECONDS = 1.5
CHECK_CELL_SECONDS = 0.5
# The student package's `autograder check` (benchmarks/student_check.py): the first run on a machine, and again.
STUDENT_CHECK_COLD_SECONDS = 2.0
STUDENT_CHECK_REPEATED_SECONDS = 1.0
WORKER_MIB = 1024.0  # peak resident memory of any grading process, under


def summarize(results: dict) -> dict:
    """The raw measurements plus the derived numbers the table shows."""
    graded = results["autograder"]["submissions"]
    count = len(graded)
    ours = count / results["autograder"]["wall_seconds"]
    nbgrader = results.get("nbgrader")
    theirs = count / nbgrader["wall_seconds"] if nbgrader else None
    per_assignment = {}
    for assignment, floor in results["floor"].items():
        rows = [g for g in graded if g["assignment"] == assignment]
        full = [g["seconds"] for g in rows if g["kind"] == "full" and "seconds" in g]
        walls = [g["seconds"] for g in rows if "seconds" in g]
        per_assignment[assignment] = {
            "floor_seconds": floor["floor_seconds"], "floor_cells_seconds": floor["cells_seconds"],
            "floor_graded_calls_seconds": floor["graded_calls_seconds"],
            "median_seconds": _percentile(walls, 50), "p95_seconds": _percentile(walls, 95),
            "full_median_seconds": _percentile(full, 50),
            "full_to_floor": _ratio(_percentile(full, 50), floor["floor_seconds"]),
            "full_to_graded_calls_floor": _ratio(_percentile(full, 50), floor["graded_calls_seconds"]),
        }
    walls = [g["seconds"] for g in graded if "seconds" in g]
    memory = {key: max((g.get(key) or 0.0) for g in graded)
              for key in ("worker_peak_rss_mb", "zygote_peak_rss_mb", "sandbox_peak_rss_mb")}
    runner = [g.get("runner_seconds") or 0.0 for g in graded]
    check = results.get("check", {})
    summary = {
        "machine": results["machine"], "batch": results["batch"],
        "throughput": {"autograder_per_second": ours, "nbgrader_per_second": theirs,
                       "ratio": _ratio(ours, theirs), "submissions": count,
                       "autograder_wall_seconds": results["autograder"]["wall_seconds"],
                       "nbgrader_wall_seconds": nbgrader["wall_seconds"] if nbgrader else None,
                       "unfinished": sum(not g["finished"] for g in graded)},
        "per_submission": {"median_seconds": _percentile(walls, 50), "p95_seconds": _percentile(walls, 95),
                           "per_assignment": per_assignment},
        "memory_peak_mib": memory,
        # Time each submission's checks waited for the clean-room runner (parsing, compiling and
        # running its exported programs, and starting a runner when one was needed).
        "runner_seconds": {"median": _percentile(runner, 50), "p95": _percentile(runner, 95),
                           "mean": sum(runner) / len(runner) if runner else None,
                           "requests_per_submission": (sum(g.get("runner_requests") or 0 for g in graded) / count
                                                       if count else None)},
        "check_seconds": check,
        "student_check_seconds": results.get("student_check", {}),
        "small_batch": _small_batch(results.get("small_batch")),
        "isolation": results.get("isolation"),
        "progress": results.get("progress"),
        "score_agreement": _agreement(graded, nbgrader),
        "raw": results,
    }
    summary["targets"] = _targets(summary)
    return summary


def table(summary: dict) -> str:
    machine, throughput, batch = summary["machine"], summary["throughput"], summary["batch"]
    lines = [
        f"Benchmark on {machine['cores']} cores, load average {_load(machine['load_average_at_start'])} at start, "
        f"{_load(machine.get('load_average_at_end'))} at end",
        f"{throughput['submissions']} submissions: {', '.join(batch['assignments'])} x {batch['per_assignment']} "
        f"({', '.join(f'{n} {k}' for k, n in batch['kinds'].items())}), seed {batch['seed']}, --jobs {batch['jobs']}",
        "",
        f"{'grader':<34}{'wall (s)':>10}{'subs/s':>9}",
        f"{'autograder grade --jobs ' + str(batch['jobs']):<34}{throughput['autograder_wall_seconds']:>10.1f}"
        f"{throughput['autograder_per_second']:>9.2f}",
    ]
    if throughput["nbgrader_per_second"] is not None:
        lines.append(f"{'nbgrader autograde':<34}{throughput['nbgrader_wall_seconds']:>10.1f}"
                     f"{throughput['nbgrader_per_second']:>9.2f}")
        lines.append(f"{'ratio':<34}{'':>10}{throughput['ratio']:>8.1f}x")
    lines += ["", f"{'per submission (s)':<22}{'floor':>7}{'= cells':>9}{'+ calls':>9}{'median':>8}{'p95':>7}"
                  f"{'full med':>10}{'full/floor':>12}"]
    for assignment, row in summary["per_submission"]["per_assignment"].items():
        lines.append(f"{assignment:<22}{row['floor_seconds']:>7.2f}{row['floor_cells_seconds']:>9.2f}"
                     f"{row['floor_graded_calls_seconds']:>9.2f}{_num(row['median_seconds']):>8}{_num(row['p95_seconds']):>7}"
                     f"{_num(row['full_median_seconds']):>10}{_times(row['full_to_floor']):>12}")
    per = summary["per_submission"]
    lines.append(f"{'all':<22}{'':>25}{_num(per['median_seconds']):>8}{_num(per['p95_seconds']):>7}")
    memory = summary["memory_peak_mib"]
    lines += ["", "peak memory (MiB): " + ", ".join(f"{k.removesuffix('_peak_rss_mb')} {v:.0f}" for k,
                                                    v in memory.items())]
    runner = summary["runner_seconds"]
    if runner["mean"] is not None:
        lines.append(f"clean-room runner per submission: mean {runner['mean'] * 1000:.0f} ms, median "
                     f"{_num(runner['median'])} s, p95 {_num(runner['p95'])} s, "
                     f"{runner['requests_per_submission']:.1f} requests")
    if summary["check_seconds"]:
        lines += ["", f"{'checks (s)':<22}{'cold':>7}{'new seed':>10}{'check cell':>12}"]
        for assignment, t in summary["check_seconds"].items():
            lines.append(f"{assignment:<22}{t['cold_seconds']:>7.2f}{t['new_seed_seconds']:>10.2f}"
                         f"{t['check_cell_seconds']:>12.2f}")
    if summary.get("student_check_seconds"):
        lines += ["", f"{'student package (s)':<22}{'cold':>7}{'repeated':>10}"]
        for assignment, t in summary["student_check_seconds"].items():
            lines.append(f"{assignment:<22}{t['cold_seconds']:>7.2f}{t['repeated_seconds']:>10.2f}")
    small = summary.get("small_batch")
    if small:
        lines.append(f"small batch, {small['submissions']} full solutions of {small['assignment']}: autograder "
                     f"{small['autograder_wall_seconds']:.1f} s, nbgrader "
                     f"{_num(small['nbgrader_wall_seconds'])} s ({_times(small['ratio'])})")
    isolation = summary.get("isolation")
    if isolation and "os" in isolation:
        lines.append(f"OS sandbox per child: {isolation['os']['median_seconds'] * 1000:.0f} ms to a loaded child "
                     f"({isolation['process']['median_seconds'] * 1000:.0f} ms without it): "
                     f"+{isolation['os_extra_per_child_seconds'] * 1000:.0f} ms")
    elif isolation:
        lines.append(f"OS sandbox per child: not measured ({isolation.get('error')})")
    progress = summary.get("progress")
    if progress and "plain_microseconds" in progress:
        per_submission = summary["per_submission"]["median_seconds"] or 0
        lines.append(f"progress reporting per submission: {progress['plain_microseconds']:.0f} us to a log, "
                     f"{progress['terminal_microseconds']:.0f} us with the terminal's bar "
                     f"({progress['terminal_microseconds'] * 1e-6 / per_submission:.4%} of a median submission)"
                     if per_submission else f"progress reporting per submission: "
                     f"{progress['plain_microseconds']:.0f} us to a log, {progress['terminal_microseconds']:.0f} us "
                     "with the terminal's bar")
    agreement = summary["score_agreement"]
    if agreement:
        lines.append(f"same total score from both graders: {agreement['same']} of {agreement['compared']}")
    lines += ["", "targets:"]
    for target in summary["targets"]:
        lines.append(f"  [{'met' if target['met'] else 'MISSED'}] {target['what']}: {target['measured']}")
    return "\n".join(lines)


def _targets(summary: dict) -> list[dict]:
    targets = []
    ratio = summary["throughput"]["ratio"]
    if ratio is not None:
        targets.append({"what": f"throughput >= {THROUGHPUT_RATIO:g}x nbgrader autograde",
                        "met": ratio >= THROUGHPUT_RATIO,
                        "measured": f"{ratio:.1f}x"})
    rows = summary["per_submission"]["per_assignment"]
    worst = max((r["full_to_floor"] for r in rows.values() if r["full_to_floor"] is not None), default=None)
    if worst is not None:
        targets.append({"what": f"full solution's wall time <= {FLOOR_RATIO:g}x the floor", "met": worst <= FLOOR_RATIO,
                        "measured": f"worst {worst:.2f}x"})
    for key, limit, what in (("cold_seconds", CHECK_COLD_SECONDS, "autograder check, cold"),
                             ("new_seed_seconds", CHECK_NEW_SEED_SECONDS, "autograder check, new seed"),
                             ("check_cell_seconds", CHECK_CELL_SECONDS, "a check cell in a running kernel, new seed")):
        measured = {a: t[key] for a, t in summary["check_seconds"].items()}
        if measured:
            slowest = max(measured, key=measured.get)
            targets.append({"what": f"{what} <= {limit:g} s", "met": measured[slowest] <= limit,
                            "measured": f"slowest {measured[slowest]:.2f} s ({slowest})"})
    for key, limit, what in (("cold_seconds", STUDENT_CHECK_COLD_SECONDS, "student package's check, cold"),
                             ("repeated_seconds", STUDENT_CHECK_REPEATED_SECONDS, "student package's check, again")):
        measured = {a: t[key] for a, t in summary.get("student_check_seconds", {}).items()}
        if measured:
            slowest = max(measured, key=measured.get)
            targets.append({"what": f"{what} <= {limit:g} s", "met": measured[slowest] <= limit,
                            "measured": f"slowest {measured[slowest]:.2f} s ({slowest})"})
    small = summary.get("small_batch")
    if small and small["ratio"] is not None:
        targets.append({"what": f"small batch >= {THROUGHPUT_RATIO:g}x nbgrader autograde",
                        "met": small["ratio"] >= THROUGHPUT_RATIO,
                        "measured": f"{small['ratio']:.1f}x"})
    peak = max(summary["memory_peak_mib"].values())
    targets.append({"what": f"every grading process < {WORKER_MIB:g} MiB", "met": peak < WORKER_MIB,
                    "measured": f"largest {peak:.0f} MiB"})
    return targets


def _small_batch(measured: dict | None) -> dict | None:
    if not measured:
        return None
    return dict(measured, ratio=_ratio(measured["nbgrader_wall_seconds"], measured["autograder_wall_seconds"]))


def _agreement(graded: list[dict], nbgrader: dict | None) -> dict | None:
    if not nbgrader:
        return None
    differ = []
    for g in graded:
        theirs = nbgrader["scores"].get(g["assignment"], {}).get(g["student"])
        if theirs is None or abs(theirs - g["score"]) > 1e-6:
            differ.append({"assignment": g["assignment"], "student": g["student"], "kind": g["kind"],
                           "autograder": g["score"], "nbgrader": theirs})
    return {"compared": len(graded), "same": len(graded) - len(differ), "different": differ}


def _percentile(values: list[float], percent: float) -> float | None:
    """Nearest-rank percentile."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * percent // 100))
    return ordered[int(rank) - 1]


def _ratio(a, b):
    return a / b if a is not None and b else None


def _num(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def _times(value) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _load(value) -> str:
    return "?" if not value else f"{value[0]:.2f}"


