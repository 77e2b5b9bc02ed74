"""Operating-system limits for the sandbox child, applied before it starts Python.

Measured on jax 0.10.2 (CPU): a child under RLIMIT_AS of 1 GiB segfaults on
import; 1.5 GiB and more run the solutions. The default, 3 GiB, leaves room
for compiling the larger assignments while a memory bomb still ends in a
MemoryError (or the child's death) instead of the machine's.
"""

from __future__ import annotations

import dataclasses
import resource
import signal


@dataclasses.dataclass(frozen=True)
class ChildLimits:
    memory_bytes: int = 3 << 30
    cpu_seconds: int = 600
    file_bytes: int = 16 << 20
    open_files: int = 256
    processes: int = 256

    @classmethod
    def from_config(cls, raw: dict) -> "ChildLimits":
        defaults = cls()
        return cls(
            memory_bytes=int(raw.get("memory_mb", defaults.memory_bytes >> 20)) << 20,
            cpu_seconds=int(raw.get("cpu_seconds", defaults.cpu_seconds)),
            file_bytes=int(raw.get("file_size_mb", defaults.file_bytes >> 20)) << 20,
            open_files=int(raw.get("open_files", defaults.open_files)),
            processes=int(raw.get("processes", defaults.processes)),
        )

    def apply(self) -> None:
        """Set the limits on the current process (runs in the child, before exec)."""
        for limit, value in (
            (resource.RLIMIT_AS, self.memory_bytes),
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_FSIZE, self.file_bytes),
            (resource.RLIMIT_NOFILE, self.open_files),
            # Not enforced for root; strict mode's unprivileged user gets it.
            (resource.RLIMIT_NPROC, self.processes),
            (resource.RLIMIT_CORE, 0),
        ):
            resource.setrlimit(limit, (value, value))
        # Writing past RLIMIT_FSIZE raises OSError instead of killing the child.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
