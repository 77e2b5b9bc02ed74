"""Strict mode (`autograder grade --sandbox strict`): no network and an unprivileged user.

Wraps the child's command in `unshare --net` (a new, empty network
namespace) and `setpriv` to the `nobody` user, so the child can neither
reach the network nor touch files that only the grader's user may. Needs
root (or CAP_SYS_ADMIN) and util-linux; `check_available` says plainly what
is missing.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from pathlib import Path

USER = "nobody"


class StrictModeUnavailable(RuntimeError):
    """This machine cannot run strict mode; the message says why and what to do."""


def check_available(python: str) -> None:
    """Raise StrictModeUnavailable unless a strict child can start here."""
    if os.geteuid() != 0:
        raise StrictModeUnavailable(
            "--sandbox strict needs root (to create a network namespace and switch to the "
            f"'{USER}' user). Run the grader as root, e.g. in a container, or use the default sandbox.")
    for tool in ("unshare", "setpriv"):
        if shutil.which(tool) is None:
            raise StrictModeUnavailable(f"--sandbox strict needs `{tool}` (util-linux); install it or use the default sandbox.")
    try:
        pwd.getpwnam(USER)
    except KeyError:
        raise StrictModeUnavailable(f"--sandbox strict needs a '{USER}' user on this machine.") from None
    probe = wrap([python, "-I", "-c", "import autograder.sandbox.child"], Path("/"))
    completed = subprocess.run(probe, capture_output=True, text=True, timeout=60)
    if completed.returncode != 0:
        raise StrictModeUnavailable(
            f"--sandbox strict could not start a child as '{USER}' without network: "
            f"{completed.stderr.strip()[-400:] or completed.returncode}. The '{USER}' user must be able "
            "to read the Python environment and the kit (check the permissions of their directories).")


def wrap(command: list[str], workdir: Path) -> list[str]:
    """The child command, run without network as the unprivileged user, who owns `workdir`."""
    user = pwd.getpwnam(USER)
    if workdir != Path("/"):
        for path in [workdir, *workdir.rglob("*")]:
            os.chown(path, user.pw_uid, user.pw_gid)
    return ["unshare", "--net", "--", "setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
            "--clear-groups", "--", *command]
