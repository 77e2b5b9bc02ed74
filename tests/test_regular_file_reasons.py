"""Why a student's file was not read, in the student's language: `autograder grade` and nbgrader say the same.

load.regular_file names each reason as a catalog key; the sentences that
show it (load.not_a_file, nbgrader.files_left_out) render it in English or
Korean, never in the operating system's English inside a Korean sentence.
"""

from __future__ import annotations

import os

import pytest

from autograder.catalog import messages
from autograder.integrations.nbgrader_student_files import LeftOut
from autograder.load import regular_file


def _reason_of(path, cap=1 << 20):
    with pytest.raises(OSError) as raised:
        regular_file.read(path, cap)
    return regular_file.reason(raised.value)


def test_each_way_a_file_is_refused_has_its_own_reason(tmp_path):
    (tmp_path / "real.ipynb").write_text("{}")
    os.symlink(tmp_path / "real.ipynb", tmp_path / "link.ipynb")
    os.mkfifo(tmp_path / "fifo.ipynb")
    (tmp_path / "big.ipynb").write_bytes(b"x" * 2048)
    assert _reason_of(tmp_path / "link.ipynb") == ("load.why.link", {})
    assert _reason_of(tmp_path / "fifo.ipynb") == ("load.why.not_regular", {})
    assert _reason_of(tmp_path / "big.ipynb", cap=1024) == ("load.why.too_large", {"limit": "1024 bytes"})
    assert _reason_of(tmp_path / "missing.ipynb") == ("load.why.missing", {})


@pytest.mark.parametrize("language, link, large", [
    ("en", "a symbolic link", "larger than 32 MiB"),
    ("ko", "심볼릭 링크", "32 MiB보다 큼"),
])
def test_a_file_left_out_is_said_in_the_feedbacks_language(tmp_path, language, link, large):
    os.symlink("/etc/hostname", tmp_path / "secret.txt")
    with pytest.raises(OSError) as raised:
        regular_file.read(tmp_path / "secret.txt", 1 << 20)
    linked = LeftOut.for_error("secret.txt", raised.value)
    too_large = LeftOut.for_error("data.bin", regular_file.TooLarge(32 << 20))
    with messages.using(language):
        assert linked.shown() == f"secret.txt ({link})"
        assert too_large.shown() == f"data.bin ({large})"
