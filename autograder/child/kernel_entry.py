"""Inside the OS sandbox: confine this process, then become a student's Jupyter kernel.

Started by sandbox.kernel_sandbox inside bubblewrap (its own PID, network, IPC
and UTS namespaces, the read-only view of sandbox.os_isolation), as root with
a few capabilities. Before any student code can run it:

- copies the submission folder, shown read-only at SUBMISSION_IN_VIEW, into
  its private size-capped tmpfs at WORKDIR (so a notebook that reads or writes
  its own data files still works, and nothing it writes leaves the sandbox);
- becomes the given uid (never root, never the grader's): every capability
  goes, and the process is no longer dumpable;
- applies the kit's OS limits, no new privileges and the seccomp filter of
  child.confinement;

then runs ipykernel in this same process (an exec would make it dumpable
again), talking to nbgrader over the IPC sockets in the runtime directory
named by its connection file. When this kernel ends, bubblewrap's PID 1 ends
and the kernel takes every process left in the namespace with it.

usage: python -I -m autograder.child.kernel_entry <uid> <limits as JSON> -- <ipykernel arguments>
"""

from __future__ import annotations

import json
import os
import shutil
import sys

from autograder.child import confinement
from autograder.protocol.limits import ChildLimits

SUBMISSION_IN_VIEW = "/submission"  # the submission folder, read-only: copied into WORKDIR


def main(argv: list[str]) -> None:
    """Confine this process as argv asks, then serve as an IPython kernel."""
    uid, limits, kernel_args = _parse(argv)
    _copy_submission(uid)
    confine_kernel(uid, limits)
    # jupyter_client names its own PID, which means nothing in this PID namespace (ipykernel
    # would see the pid as gone and exit); 1 means "no parent to watch": the sandbox dies
    # with its parent anyway (bubblewrap's --die-with-parent).
    os.environ["JPY_PARENT_PID"] = "1"
    sys.argv = ["ipykernel_launcher", *kernel_args]
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


def confine_kernel(uid: int, limits: ChildLimits) -> None:
    """The grading child's confinement, minus what bubblewrap already did (namespaces, /proc, tmpfs)."""
    confinement._drop_identity(uid)
    limits.apply()
    confinement._no_new_privileges()
    confinement._install_seccomp_filter()
    os.chdir(confinement.WORKDIR)


def _parse(argv: list[str]) -> tuple[int, ChildLimits, list[str]]:
    if len(argv) < 3 or argv[2] != "--":
        raise SystemExit("usage: kernel_entry <uid> <limits JSON> -- <ipykernel arguments>")
    return int(argv[0]), ChildLimits(**json.loads(argv[1])), argv[3:]


def _copy_submission(uid: int) -> None:
    """Copy the read-only submission into the private tmpfs, owned by `uid` (symlinks stay links)."""
    if os.path.isdir(SUBMISSION_IN_VIEW):
        shutil.copytree(SUBMISSION_IN_VIEW, confinement.WORKDIR, symlinks=True, dirs_exist_ok=True)
    for directory, subdirectories, files in os.walk(confinement.WORKDIR):
        for name in [directory, *(os.path.join(directory, f) for f in subdirectories + files)]:
            os.lchown(name, uid, uid)
    os.chmod(confinement.WORKDIR, 0o700)


if __name__ == "__main__":
    main(sys.argv[1:])
