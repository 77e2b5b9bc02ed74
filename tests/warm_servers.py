"""Finding the warm servers of `autograder check` (autograder/warm_start) that a test started, and their forks."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from autograder.warm_start import identity

PATIENCE_SECONDS = 120  # how long to wait for a process to start, serve or end; never a measure of speed


def servers(cache_home: Path) -> list[int]:
    """The live servers under `cache_home`: the process ids their lock files hold."""
    found = []
    for lock in (cache_home / "autograder" / "warm-checks").glob("*.lock"):
        text = lock.read_text().strip()
        if text.isdigit() and Path(f"/proc/{text}").exists():
            found.append(int(text))
    return found


def ready_server(cache_home: Path) -> int:
    """The one server under `cache_home`, once it accepts connections."""
    def accepting() -> bool:
        sockets = list((cache_home / "autograder" / "warm-checks").glob("*.sock"))
        if len(servers(cache_home)) != 1 or not sockets:
            return False
        with socket.socket(socket.AF_UNIX) as probe, identity.socket_address(sockets[0]) as address:
            return probe.connect_ex(address) == 0

    assert waited_for(accepting), f"no warm server started under {cache_home}"
    return servers(cache_home)[0]


def reaped_cpu_ticks(pid: int) -> int:
    """CPU time of the children `pid` has waited for (its forks), in clock ticks: /proc/PID/stat's cutime+cstime."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[13]) + int(fields[14])


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def waited_for(condition) -> bool:
    """Whether `condition()` came true within PATIENCE_SECONDS."""
    deadline = time.monotonic() + PATIENCE_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def ended(*pids: int) -> bool:
    """Whether every process of `pids` is gone within PATIENCE_SECONDS."""
    return waited_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in pids))
