"""The check cell's HTML table is laid out left-aligned in JupyterLab 4, Notebook 7 and VS Code, read from the DOM.

A real `jupyter lab` server (JupyterLab and Notebook 7 come with nbgrader)
opens a notebook whose output is the check cell's table, as a student's
kernel displays it; headless Chromium renders it with the frontend's own
CSS, and the test reads each cell's computed style: every text cell
left-aligned, the table at the output's left edge, each hint starting where
the check's function name starts, and the got and expected rows of wrong
values in columns (monospace, spaces kept: each entry of one row under
the entry of the other). VS Code's notebook editor cannot run
here: its webview's stylesheet, vendored in tests/frontends/, is rendered
around the same table in the same browser. Nothing depends on how fast the machine
is: the waits are for elements to appear, with generous limits.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from headless_browser import chromium
from nbformat import v4

from autograder.check.results import CheckResult, SubmissionResult
from autograder.reports.check_cell import CheckCellTable

JUPYTER = Path(sys.executable).with_name("jupyter")
VSCODE_WEBVIEW = Path(__file__).parent / "frontends" / "vscode_notebook_webview.html"
STARTUP_SECONDS = 600  # a loaded 2-core machine; the test waits for readiness, never for a fixed time
FEEDBACK = ("histogram(i32[104], 3) returned the wrong values.\n"
            "  got:      [ *1  *1  *1]\n"
            "  expected: [*40 *31 *33]\n"
            "Hint: a functional `set` writes each bin once however often its index repeats.")


def _table_html() -> str:
    checks = [CheckResult("histogram", "correct on small inputs", 2, 2, True, ""),
              CheckResult("histogram", "duplicates counted", 0, 3, False, FEEDBACK),
              CheckResult("histogram", "jittable", 0, 1, False, "Same wrong values under jax.jit.")]
    result = SubmissionResult(name="s", path="s.ipynb", assignment="01_immutable_updates", seed=1, checks=checks)
    return CheckCellTable(result, "histogram: 2 / 6")._repr_html_()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1 serving a folder with the notebook; yields (base URL, token)."""
    root = tmp_path_factory.mktemp("lab")
    notebook = v4.new_notebook(cells=[v4.new_code_cell(
        "check(histogram)", execution_count=1,
        outputs=[v4.new_output("display_data", data={"text/html": _table_html(), "text/plain": "histogram: 2 / 6"})])])
    nbformat.write(notebook, root / "table.ipynb")
    port, token = _free_port(), secrets.token_hex(16)
    home = root / "home"
    env = os.environ | {"HOME": str(home), "JUPYTER_CONFIG_DIR": str(home / "config"),
                        "JUPYTER_DATA_DIR": str(home / "data"), "JUPYTER_RUNTIME_DIR": str(home / "runtime")}
    server = subprocess.Popen(
        [str(JUPYTER), "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
         f"--ServerApp.token={token}", f"--ServerApp.root_dir={root}", "--ServerApp.open_browser=False",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=open(root / "server.log", "wb"))
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_serving(f"{base}/api/status?token={token}", server, root / "server.log")
        yield base, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()


def _wait_until_serving(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"jupyter lab exited: {log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=10):
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"jupyter lab did not answer within {STARTUP_SECONDS} s: {log.read_text(errors='replace')[-3000:]}")


@pytest.fixture
def browser(tmp_path):
    with chromium(tmp_path) as driver:
        yield driver


# Per table cell: its computed text-align, its left edge, and its column (the function name is column 1).
LAYOUT = """
function textLeft(td) {  // where the cell's text starts, not its box
  const range = document.createRange();
  range.selectNodeContents(td);
  const boxes = range.getClientRects();
  return boxes.length ? boxes[0].left : null;
}
function charLefts(span) {  // the left edge of each character of a laid-out line of feedback
  const text = span.firstChild, lefts = [];
  for (let i = 0; i < text.length; i++) {
    const range = document.createRange();
    range.setStart(text, i); range.setEnd(text, i + 1);
    lefts.push(range.getBoundingClientRect().left);
  }
  return lefts;
}
const table = document.querySelector('.autograder-check table');
const cells = Array.from(table.querySelectorAll('td'));
return {
  table_margin_left: getComputedStyle(table).marginLeft,
  table_left: table.getBoundingClientRect().left,
  output_left: table.closest('.autograder-check').getBoundingClientRect().left,
  cells: cells.map(td => ({align: getComputedStyle(td).textAlign, colspan: td.colSpan,
                           index: Array.from(td.parentElement.children).indexOf(td),
                           text: td.textContent, left: td.getBoundingClientRect().left,
                           text_left: textLeft(td)})),
  laid_out: Array.from(table.querySelectorAll('.autograder-laid-out')).map(span => ({
    text: span.textContent, white_space: getComputedStyle(span).whiteSpace,
    lefts: charLefts(span)})),
};
"""


@pytest.mark.parametrize("frontend", ["lab/tree", "notebooks"], ids=["JupyterLab 4", "Notebook 7"])
def test_check_cell_table_is_left_aligned(jupyter, browser, frontend):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    base, token = jupyter
    browser.get(f"{base}/{frontend}/table.ipynb?token={token}")
    WebDriverWait(browser, STARTUP_SECONDS, poll_frequency=0.5).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".jp-OutputArea .autograder-check td")))
    layout = browser.execute_script(LAYOUT)
    _assert_left_aligned(layout)
    _assert_got_and_expected_line_up(layout)


def test_check_cell_table_is_left_aligned_under_vscodes_notebook_stylesheet(browser, tmp_path):
    """VS Code's notebook webview right-aligns tables (`table, th, tr {text-align: right}`) and sets
    every cell's padding: its stylesheet, vendored in tests/frontends/, around the same table."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    page = tmp_path / "vscode.html"
    page.write_text(VSCODE_WEBVIEW.read_text(encoding="utf-8").replace(
        '<div class="output"></div>', f'<div class="output">{_table_html()}</div>'), encoding="utf-8")
    browser.get(page.as_uri())
    WebDriverWait(browser, STARTUP_SECONDS, poll_frequency=0.5).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "div.output .autograder-check td")))
    layout = browser.execute_script(LAYOUT)
    _assert_left_aligned(layout)
    _assert_got_and_expected_line_up(layout)


def _assert_left_aligned(layout: dict) -> None:
    """Every text cell left-aligned, the table at the output's left edge, each hint under the function names."""
    cells = layout["cells"]
    points = [c for c in cells if "/" in c["text"] and c["colspan"] == 1 and c["index"] == 3]
    text_cells = [c for c in cells if c not in points]
    assert [c["align"] for c in text_cells] == ["left"] * len(text_cells), cells
    assert layout["table_margin_left"] == "0px" and abs(layout["table_left"] - layout["output_left"]) < 1, layout
    # Each hint's lines start where the function names start: one straight left edge.
    names = [c for c in cells if c["index"] == 1 and c["colspan"] == 1]
    hints = [c for c in cells if c["colspan"] == 4]
    assert len(hints) == 2 and names
    for hint in hints:
        assert abs(hint["text_left"] - names[0]["text_left"]) < 1, (hint, names[0])


def _assert_got_and_expected_line_up(layout: dict) -> None:
    """The got and expected rows keep their spaces, and each character of one row stands exactly above
    the character at the same place of the other: the entries and brackets are in columns."""
    got, expected = layout["laid_out"]
    assert got["text"] == "  got:      [ *1  *1  *1]" and got["white_space"] == "pre", got
    assert len(got["lefts"]) == len(expected["lefts"]) == len(got["text"]), (got, expected)
    for column, (mine, theirs) in enumerate(zip(got["lefts"], expected["lefts"], strict=True)):
        assert abs(mine - theirs) < 0.5, (column, got, expected)
    # Monospace, no space collapsed: every character, a space too, is as wide as the first.
    advances = [b - a for a, b in zip(got["lefts"], got["lefts"][1:], strict=False)]
    assert advances[0] > 3 and all(abs(a - advances[0]) < 0.5 for a in advances), advances
