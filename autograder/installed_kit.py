"""The kit as installed: its package folder, version and declared dependencies, read from the installation.

A course directory has no checkout of the kit beside it: what the Gradescope
zip and the student package pin (the kit's version and its dependencies) comes
from the installed distribution's metadata, which pip wrote from
pyproject.toml, and the kit's files from the imported package itself.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

DISTRIBUTION = "autograder"
# The imported `autograder` package: site-packages/autograder, or a checkout's autograder/ (editable install).
PACKAGE = Path(__file__).resolve().parent


class KitNotInstalled(RuntimeError):
    """The running kit has no installed distribution to read its version and dependencies from."""


def _distribution() -> metadata.Distribution:
    try:
        return metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise KitNotInstalled(f"the kit at {PACKAGE} is not installed (no {DISTRIBUTION} distribution's metadata "
                              f"on this Python's path): install it with `pip install <the kit>`, or "
                              "`pip install -e .` in its checkout, and run the command again.") from None


def version() -> str:
    """The installed kit's version (pyproject.toml's, as pip recorded it)."""
    return _distribution().version


def requirements() -> list[str]:
    """The kit's own dependencies as it declares them (`jax==0.10.2`, ...), without the optional extras."""
    from packaging.requirements import Requirement

    return [text for text in _distribution().requires or [] if "extra" not in str(Requirement(text).marker or "")]
