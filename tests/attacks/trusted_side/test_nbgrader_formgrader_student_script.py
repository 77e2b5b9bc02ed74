"""No script of a student's runs when the instructor opens her submission in nbgrader's formgrader.

A real course (the repository's nbgrader_config.py), real `nbgrader autograde` with confined kernels, a
real formgrader (Jupyter server) and headless Chromium:
  alice    the reference solutions (honest)
  mallory  the released stubs, and cells whose outputs are HTML with a script and an image's onerror,
           JavaScript, SVG with a script and markdown with raw HTML, plus a markdown cell of raw HTML.
Each script marks the page it runs in, then asks the formgrader's API to double Mallory's grades and
the Jupyter server to create a file in the course directory. The kit once kept every such output, and
the page ran them. Now the instructor's browser opens Mallory's page, shows her printed text, and no
mark, grade or file appears; Alice keeps full marks.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess

import nbformat
import pytest
from conftest import SEED
from formgrader_http import get_with_token, start_formgrader
from headless_browser import PAGE_LOAD_SECONDS, chromium
from nbgrader_courses import honest_notebook, released_course, run_nbgrader, scores, stub_notebook, submission_folder

from autograder import grading_config

ASSIGNMENT = "01_immutable_updates"
CONFIG = grading_config.load()
TOTAL = sum(CONFIG.function_total(ASSIGNMENT, f) for f in CONFIG.functions(ASSIGNMENT))
# Marks the page, then tries what a script on the formgrader's origin can: change grades, write a file.
SCRIPT = """(function (name) {
  document.documentElement.setAttribute('data-student-script-' + name, 'ran');
  var xsrf = (document.cookie.match(/_xsrf=([^;]+)/) || [])[1] || '';
  var headers = {'X-CSRFToken': xsrf, 'X-XSRFToken': xsrf, 'Content-Type': 'application/json'};
  var id = location.pathname.split('/').pop();
  fetch('/formgrader/api/grades?submission_id=' + id, {headers: headers}).then(function (r) { return r.json(); })
    .then(function (grades) { grades.forEach(function (g) {
      fetch('/formgrader/api/grade/' + g.id, {method: 'PUT', headers: headers,
                                              body: JSON.stringify({manual_score: 2 * g.max_score})}); }); });
  fetch('/api/contents/PLANTED-' + name + '.txt', {method: 'PUT', headers: headers,
        body: JSON.stringify({type: 'file', format: 'text', content: name})});
})('%s');"""
HOSTILE_CELL = f"""
from IPython.display import HTML, SVG, Javascript, Markdown, display
SCRIPT = {SCRIPT!r}
print("hostile cell printed this")
display(HTML("<b>bold</b><script>" + SCRIPT % "html" + "</script>"))
display(HTML('<img src="x" onerror="' + (SCRIPT % "onerror").replace('"', '&quot;') + '">'))
display(Javascript(SCRIPT % "javascript"))
display(SVG('<svg xmlns="http://www.w3.org/2000/svg"><script>' + SCRIPT % "svg" + '</script></svg>'))
display(Markdown('<img src="x" onerror="' + (SCRIPT % "markdown_output").replace('"', '&quot;') + '">'))
"""
HOSTILE_MARKDOWN = f"Some notes.\n\n<script>{SCRIPT % 'markdown_cell'}</script>\n\nUse `a < b` here."

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="the confined kernel needs root and bubblewrap")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = released_course(tmp_path_factory.mktemp("course"), ASSIGNMENT, seed=SEED)
    alice = submission_folder(root, "alice", ASSIGNMENT) / f"{ASSIGNMENT}.ipynb"
    nbformat.write(honest_notebook(root, ASSIGNMENT), alice)
    hostile = stub_notebook(root, ASSIGNMENT)
    hostile.cells[1:1] = [nbformat.v4.new_code_cell(HOSTILE_CELL), nbformat.v4.new_markdown_cell(HOSTILE_MARKDOWN)]
    nbformat.write(hostile, submission_folder(root, "mallory", ASSIGNMENT) / f"{ASSIGNMENT}.ipynb")
    graded = run_nbgrader(root, "autograde", ASSIGNMENT, seed=SEED)
    assert graded.returncode == 0, graded.stderr[-3000:]
    return root


def test_the_autograded_notebook_keeps_only_text_and_bitmaps(course):
    notebook = nbformat.read(course / "autograded" / "mallory" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    kinds = {mime for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
             for mime in output.get("data", {})}
    assert kinds <= {"text/plain", "image/png", "image/jpeg", "image/gif"}, kinds
    [markdown] = [cell for cell in notebook.cells if "Some notes." in cell.source]
    assert "<script>" not in markdown.source and "&lt;script>" in markdown.source
    assert "`a < b`" in markdown.source, "code spans are shown as written"


def test_opening_the_hostile_submission_runs_none_of_its_scripts(course, tmp_path):
    before = scores(course, ASSIGNMENT)
    assert sum(before["alice"].values()) == TOTAL and sum(before["mallory"].values()) == 0, before
    token = secrets.token_hex(16)
    server, base = start_formgrader(course, token)
    try:
        status, body = get_with_token(f"{base}/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{ASSIGNMENT}", token)
        assert status == 200, body[:2000]
        mallory = next(entry for entry in json.loads(body) if entry["student"] == "mallory")
        with chromium(tmp_path) as browser:
            browser.get(f"{base}/formgrader?token={token}")  # logs the browser in, as the instructor
            browser.get(f"{base}/formgrader/submissions/{mallory['id']}")
            from selenium.webdriver.support.ui import WebDriverWait

            WebDriverWait(browser, PAGE_LOAD_SECONDS, poll_frequency=0.5).until(
                lambda driver: driver.execute_script("return document.readyState") == "complete")
            page = browser.page_source
            marks = browser.execute_script(
                "return document.documentElement.getAttributeNames().filter(n => n.startsWith('data-student'))")
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert "hostile cell printed this" in page, "the page shows the submission"
    assert marks == [], marks
    assert scores(course, ASSIGNMENT) == before
    assert not list(course.glob("PLANTED-*"))
