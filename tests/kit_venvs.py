"""Fresh virtual environments holding the kit as a course team installs it, without downloading anything.

A new venv gets this run's dependencies as hard links of this venv's
site-packages (same file system: no copy; files that cannot be linked are
copied), every one but the kit itself. Its prefix then holds them as pip
would have put them there, which matters: the OS sandbox's view and the
process sandbox's audit guard let a submission read the Python prefixes, and
nothing outside them. The kit is then installed with pip from a copy of the
working tree's files (pip builds in the source folder: the checkout is never
written), non-editable or editable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEV_SITE = Path(sysconfig.get_paths()["purelib"])
# What of this venv's site-packages is the kit's own (its editable install), never linked into a new venv.
_KIT_ENTRIES = ("autograder", "__editable__", "__editable___autograder")
# The kit's files a user's copy holds (its package, how to build it, and its own course).
KIT_FILES = ("pyproject.toml", "setup.py", "README.md", "autograder", "grading.toml", "nbgrader_config.py",
             "solutions", "assignments")


def fresh_venv(folder: Path) -> Path:
    """A venv at `folder` with this venv's dependencies and no kit; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, capture_output=True)
    site = site_packages(folder)
    for entry in DEV_SITE.iterdir():
        if entry.name.startswith(_KIT_ENTRIES) or entry.name == "__pycache__":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, site / entry.name, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(entry, site / entry.name)
    # nbgrader runs `alembic` by name from the venv's bin (release.nbgrader_environment), as pip would install it.
    alembic = folder / "bin" / "alembic"
    alembic.write_text(f"#!{folder / 'bin' / 'python'}\nimport sys\nfrom alembic.config import main\n"
                       "sys.exit(main())\n")
    alembic.chmod(0o755)
    return folder / "bin" / "python"


def site_packages(venv: Path) -> Path:
    return venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def kit_source(folder: Path) -> Path:
    """A copy of the working tree's kit files (tracked, or new and not ignored) at `folder`."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", *KIT_FILES],
                            cwd=REPO, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, folder / name)
    return folder


def install(python: Path, source: Path, *, editable: bool = False) -> None:
    """pip install the kit at `source` into `python`'s venv, without its dependencies (the venv has them)."""
    command = [str(python), "-m", "pip", "install", "--no-deps", "--quiet", "--disable-pip-version-check",
               *(["-e"] if editable else []), str(source)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stderr[-3000:]


def _link_or_copy(source, target) -> None:
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, target, follow_symlinks=False)
