"""The class report (report.html and the terminal summary), built from one real `autograder grade` run.

The batch: for 01_immutable_updates a perfect solution, the released stub, a
notebook that is not JSON, the examples' mistakes and top-level code that
never ends; for 02_where a perfect .py, two students with the same mistake
(on lines of their own), and one whose file name and error message are HTML.
Every number the report states is checked against the results.json files.
"""

from __future__ import annotations

import csv
import html.parser
import json
import os
import re
import shutil
import statistics
import sys
import urllib.parse
from pathlib import Path

import pytest
from conftest import REPO, course_config, run_cli

from autograder import grading_config
from autograder.catalog import messages
from autograder.reports import class_report, gradescope_json
from autograder.reports.out_dir import OutDir
from autograder.reports.result_json import test_status as status_of

A1, A2 = "01_immutable_updates", "02_where"
LOAD_SECONDS = 8
HONEST_02 = """import jax.numpy as jnp

def sum_of_positive_numbers(x):
    return jnp.where(x > 0, x, 0).sum()

def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))

def masked_mean(x, mask):
    return jnp.where(mask, x, 0.0).sum() / jnp.maximum(mask.sum(), 1)

def safe_log(x):
    safe = jnp.where(x > 0, x, 1.0)
    return jnp.where(x > 0, jnp.log(safe), 0.0)
"""
# A boolean mask has a data-dependent shape: fine outside jit, NonConcreteBooleanIndexError under it.
MASKED_SUM = "return jnp.where(x > 0, x, 0).sum()"
MISTAKE_02 = HONEST_02.replace(MASKED_SUM, "return x[x > 0].sum()")
HOSTILE_NAME = f"<img src=x onerror=alert(1)>_{A2}"
HOSTILE_MESSAGE = '<script>alert(document.domain)</script><a href="https://evil.example/">click</a>'
HOSTILE_02 = HONEST_02.replace(
    "def selu(x, alpha=1.67, lmbda=1.05):\n",
    f"def selu(x, alpha=1.67, lmbda=1.05):\n    raise ValueError({HOSTILE_MESSAGE!r})\n")


def _sandbox() -> str:
    from autograder.sandbox import os_isolation

    try:
        os_isolation.check_available(sys.executable)
    except os_isolation.IsolationUnavailable:
        return "process"
    return "os"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One `autograder grade` run; returns (out dir, results in the batch's order, config)."""
    text = (REPO / "grading.toml").read_text().replace("load_seconds = 60", f"load_seconds = {LOAD_SECONDS}")
    config_path = course_config(tmp_path_factory.mktemp("config"), text)
    batch = tmp_path_factory.mktemp("batch")
    shutil.copy(REPO / "solutions" / A1 / f"{A1}.ipynb", batch / f"alice_{A1}.ipynb")
    shutil.copy(REPO / "assignments" / A1 / f"{A1}.ipynb", batch / f"bob_{A1}.ipynb")
    (batch / f"carol_{A1}.ipynb").write_text('{"cells": [ this is not json')
    shutil.copy(REPO / "examples" / A1 / f"mistakes_{A1}.ipynb", batch / f"dave_{A1}.ipynb")
    (batch / f"erin_{A1}.py").write_text("while True:\n    pass\n")
    (batch / f"rosa_{A2}.py").write_text(HONEST_02)
    (batch / f"pat_{A2}.py").write_text(MISTAKE_02)
    (batch / f"quinn_{A2}.py").write_text("# my notes\n# on two lines\n" + MISTAKE_02)
    (batch / f"{HOSTILE_NAME}.py").write_text(HOSTILE_02)
    out = tmp_path_factory.mktemp("out")
    completed = run_cli("--config", str(config_path), "grade", str(batch), "--out", str(out), "--seed", "7",
                        "--sandbox", _sandbox())
    assert completed.returncode == 0, completed.stderr[-3000:]
    with open(out / "grades.csv", newline="") as handle:
        names = [row["submission"] for row in csv.DictReader(handle)]
    with OutDir(out, create=False) as opened:
        results = [gradescope_json.read(opened, name) for name in names]
    return out, results, grading_config.load(config_path)


@pytest.fixture(scope="module")
def report(graded):
    _, results, _ = graded
    return class_report.build(results)


@pytest.fixture(scope="module")
def written(graded):
    """report.html written into the run's out dir, as the batch writes it; its text."""
    out, results, _ = graded
    with OutDir(out, create=False) as opened:
        class_report.write(results, opened)
    return (out / class_report.FILENAME).read_text(encoding="utf-8")


def _by_student(results, prefix):
    [result] = [r for r in results if r["extra_data"]["student"].startswith(prefix)]
    return result


def _first_line(feedback: str) -> str:
    return next(line.strip() for line in feedback.splitlines() if line.strip())


# --- the numbers ---------------------------------------------------------------------------------

def test_score_distribution_per_assignment_matches_the_results(graded, report):
    _, results, config = graded
    assert [d.assignment for d in report.scores] == [A1, A2]
    for distribution in report.scores:
        scores = sorted(r["score"] for r in results if r["extra_data"]["assignment"] == distribution.assignment)
        assert distribution.scores == tuple(scores)
        assert (distribution.count, distribution.minimum, distribution.maximum) == (len(scores), scores[0], scores[-1])
        assert distribution.mean == pytest.approx(statistics.fmean(scores))
        assert distribution.median == pytest.approx(statistics.median(scores))
        assert distribution.max_score == config.assignment_total(distribution.assignment)
    first, second = report.scores
    assert first.count == 5 and second.count == 4
    assert first.maximum == first.max_score and first.full_marks == 1  # alice
    assert first.minimum == 0  # the stub, the broken notebook, the endless loop
    assert second.full_marks == 1  # rosa; pat and quinn lose the jit check, the hostile one selu


def test_pass_rate_of_every_check_matches_the_results(graded, report):
    _, results, config = graded
    expected = {}
    for result in results:
        for test in result["tests"]:
            key = (result["extra_data"]["assignment"], test["name"])
            passed, total = expected.get(key, (0, 0))
            expected[key] = (passed + (test["status"] == "passed"), total + 1)
    assert {(r.assignment, r.check): (r.passed, r.total) for r in report.checks} == expected
    graded_checks = {(a, f"{function}: {prop}") for a in (A1, A2) for function, props in config.points[a].items()
                     for prop in props}
    assert {(r.assignment, r.check) for r in report.checks} == graded_checks
    rates = {(r.assignment, r.check): r for r in report.checks}
    jit = rates[(A2, "sum_of_positive_numbers: jittable")]
    assert (jit.passed, jit.total, jit.rate, jit.points) == (2, 4, 0.5, 2)


def test_submissions_that_failed_to_load_are_listed_with_why(graded, report):
    _, results, _ = graded
    not_loaded = {n.student.split("_")[0]: n for n in report.not_loaded}
    assert set(not_loaded) == {"carol", "erin"}
    assert not_loaded["carol"].problem == "unreadable" and "not a valid notebook" in not_loaded["carol"].detail
    assert not_loaded["erin"].problem == "timeout"
    assert not_loaded["erin"].detail == messages.text("load.timeout", seconds=LOAD_SECONDS)
    expected = {r["extra_data"]["submission"] for r in results if r["extra_data"].get("problem")}
    assert {n.submission for n in report.not_loaded} == expected
    failing = {name for failure in report.failures for name in failure.submissions}
    assert not failing & expected  # their failures are not counted as failures of the checks
    assert {look.submission for look in report.needs_a_look} >= expected


def test_most_common_failure_groups_the_same_cause_and_carries_its_hint(graded, report):
    _, results, _ = graded
    top = report.failures[0]
    pat, quinn = _by_student(results, "pat_"), _by_student(results, "quinn_")
    assert (top.assignment, top.check, top.count) == (A2, "sum_of_positive_numbers: jittable", 2)
    assert set(top.submissions) == {pat["extra_data"]["submission"], quinn["extra_data"]["submission"]}
    assert all(f.count < top.count for f in report.failures[1:])
    feedback = [next(t["output"] for t in r["tests"] if t["name"] == top.check) for r in (pat, quinn)]
    assert _first_line(feedback[0]) != _first_line(feedback[1])  # the mistake sits on other lines of each file
    assert top.example == _first_line(feedback[0])
    assert top.cause == class_report.normalize_feedback(_first_line(feedback[1]))
    assert top.hint == messages.text("call.hint", hint=messages.text("hint.NonConcreteBooleanIndexError"))
    assert top.hint in feedback[0].splitlines()
    # Every failed check of a submission that loaded is in exactly one group, or of a function left as a stub;
    # a check not checked (its function's values were wrong) is in none.
    loaded = [r for r in results if not r["extra_data"].get("problem")]
    stubbed = {(r["extra_data"]["submission"], t["name"].split(":")[0]) for r in loaded for t in r["tests"]
               if "is not implemented yet" in t["output"]}
    assert stubbed and {f for _, f in stubbed} == {row.function for row in report.not_attempted}
    assert sum(f.count for f in report.failures) == sum(
        1 for r in loaded for t in r["tests"]
        if status_of(t) == "failed" and (r["extra_data"]["submission"], t["name"].split(":")[0]) not in stubbed)


def test_slowest_submissions_come_from_the_grading_times(graded, report):
    _, results, _ = graded
    timed = sorted(((r["extra_data"]["grading"]["seconds"], r["extra_data"]["submission"]) for r in results
                    if "grading" in r["extra_data"]), key=lambda pair: (-pair[0], pair[1]))
    assert [(s.seconds, s.submission) for s in report.slowest] == timed[:class_report.SLOWEST]
    erin = next(s for s in report.slowest if s.student.startswith("erin_"))
    assert erin.seconds >= LOAD_SECONDS


def test_feedback_is_normalized_so_the_same_cause_groups_together():
    normalize = class_report.normalize_feedback
    assert (normalize("set_element(f32[5], 4, -0.4568) raised TypeError: no [cell 8, line 7]")
            == normalize("set_element(f32[19], -3, 0.4941) raised TypeError: no [cell 2, line 12]")
            == "set_element(f32[#], #, #) raised TypeError: no [cell #, line #]")
    assert normalize("got [1. 2. 3.], expected 0.0. Largest difference nan, at 0x7f79615") == (
        "got [#], expected #. Largest difference #, at 0x#")
    assert normalize("traced array, shape int32[], in float32(8.5)") == "traced array, shape int32[], in float32(#)"
    assert class_report.hint_of("f() raised E: x\nHint: split the key.\nMore.") == "Hint: split the key."
    assert class_report.hint_of("f() returned wrong values") is None


# --- the HTML ------------------------------------------------------------------------------------

class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.style = ""
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.style += data


def test_html_is_self_contained(graded, written, report):
    _, results, _ = graded
    feedback = "\n".join(t["output"] for r in results for t in r["tests"])
    assert "https://" in feedback  # JAX's errors link to its documentation; the report must not
    assert "http://" not in written and "https://" not in written
    assert not re.search(r"(?i)\b(?:https?|ftp|wss?|file)://", written)
    parser = _Tags()
    parser.feed(written)
    names = [tag for tag, _ in parser.tags]
    assert not {"script", "link", "iframe", "object", "embed", "base", "form", "audio", "video", "source"} & set(names)
    images = [attrs for tag, attrs in parser.tags if tag == "img"]
    assert len(images) == 2 * len(report.scores)  # a histogram and a pass-rate plot per assignment
    assert all(attrs["src"].startswith("data:image/svg+xml;base64,") and attrs["alt"] for attrs in images)
    # Links go to the report's own sections, or to a submission's results.json beside it in the out dir.
    out, _, _ = graded
    links = [attrs["href"] for tag, attrs in parser.tags if "href" in attrs]
    files = [link for link in links if not link.startswith("#")]
    assert files and all(re.fullmatch(r"[^/:#?]+/results\.json", link) for link in files), files
    assert all((out / urllib.parse.unquote(link)).is_file() for link in files)
    assert not any(key.startswith("on") for _, attrs in parser.tags for key in attrs)
    assert "url(" not in parser.style and "@import" not in parser.style
    [policy] = [attrs["content"] for tag, attrs in parser.tags if attrs.get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in policy and "img-src data:" in policy


def test_hostile_names_and_feedback_are_escaped(graded, written):
    _, results, _ = graded
    hostile = _by_student(results, "<img")
    assert any(HOSTILE_MESSAGE in t["output"] for t in hostile["tests"])  # it did reach the feedback
    for raw in ("<script", "<img src=x", '<a href="https', 'evil.example/">'):
        assert raw not in written
    assert "&lt;img src=x onerror=alert(1)&gt;" in written  # student and path
    assert "&lt;script&gt;alert(document.domain)&lt;/script&gt;" in written  # feedback
    # The same strings as submission name, assignment, check name, hint and note, with control characters.
    evil = "<script>alert(1)</script>\x1b[2J\u202e"
    forged = json.loads(json.dumps(hostile))
    forged["extra_data"].update(submission=evil, student=evil, path=evil, assignment=evil, problem=None)
    forged["output"] = evil
    for test in forged["tests"]:
        test.update(name=evil + test["name"], status="failed", output=f"{evil} raised\nHint: {evil}")
    crashed = json.loads(json.dumps(forged))
    crashed["extra_data"]["problem"] = "grader_error"
    built = class_report.build([forged, crashed])
    page = class_report.render_html(built)
    assert "<script" not in page and "\x1b" not in page and "\u202e" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[2J\\u202e" in page
    terminal = class_report.render_terminal(built)
    assert "\x1b" not in terminal and "\u202e" not in terminal and "\\x1b[2J" in terminal


def test_write_goes_through_the_out_dir_and_replaces_a_planted_link(graded, tmp_path):
    _, results, _ = graded
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    (out / class_report.FILENAME).symlink_to(target)
    with OutDir(out, create=False, note=lambda _: None) as opened:
        built = class_report.write(results, opened)
    assert target.read_text() == "keep me"
    written = out / class_report.FILENAME
    assert not written.is_symlink() and written.read_text(encoding="utf-8") == class_report.render_html(built)


def test_terminal_summary_is_short_and_names_who_needs_a_look(report):
    terminal = class_report.render_terminal(report)
    lines = terminal.splitlines()
    assert len(lines) <= (1 + len(report.scores) + 1 + 2 * class_report.TERMINAL_FAILURES
                          + bool(report.not_attempted) + 1 + len(report.needs_a_look))
    failures = [line for line in lines if re.match(r"  \d\. |     ", line)]  # a failure and its hint: cut to width
    assert failures and all(len(line) <= class_report.TERMINAL_WIDTH for line in failures)
    for d in report.scores:
        assert any(line.strip().startswith(f"{d.assignment}: {d.count} submission(s), mean {d.mean:.3g}, median "
                                           f"{d.median:.3g}, min {d.minimum:g}, max {d.maximum:g} of {d.max_score:g}")
                   for line in lines)
    assert f"1. {A2} / sum_of_positive_numbers: jittable: 2 submission(s)" in terminal
    assert len(re.findall(r"^  \d\. ", terminal, re.M)) == min(3, len(report.failures))
    look = lines.index(class_report.REPORT_TEXT["report.class_terminal_look"].format(count=len(report.needs_a_look)))
    assert lines[look + 1:] == [f"  {n.submission} ({n.assignment}): {class_report.problem_reason(n.problem)}"
                                for n in report.not_loaded]


def test_every_sentence_of_the_report_is_in_the_catalog():
    """So ko.po translates it, and a Korean run writes a Korean report (tests/test_translations.py)."""
    source = "".join(path.read_text() for path in Path(class_report.__file__).parent.glob("class_*.py"))
    used = set(re.findall(r'\bsentence\(\s*"(report\.[a-z_]+)"', source))
    assert len(used) > 50  # the class report's modules were found and read
    used |= {f"report.class_problem_{p}" for p in class_report.LOAD_PROBLEMS}
    assert used <= set(class_report.REPORT_TEXT) <= set(messages.ENGLISH)


HANGUL = re.compile(r"[가-힣]")


class _Words(html.parser.HTMLParser):
    """The page's title, headings and table headers: the report's own words (no student's text)."""

    def __init__(self):
        super().__init__()
        self.lang, self.words, self._in = None, [], None

    def handle_starttag(self, tag, attrs):
        if tag == "html":
            self.lang = dict(attrs).get("lang")
        if tag in ("title", "h1", "h2", "th", "figcaption"):
            self._in, self.words = tag, [*self.words, ""]

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in:
            self.words[-1] += data


def test_a_korean_run_writes_a_korean_class_report(tmp_path):
    """`autograder --lang ko grade`: the report on the terminal and report.html are Korean, check names too."""
    batch = tmp_path / "batch"
    batch.mkdir()
    (batch / f"pat_{A2}.py").write_text(MISTAKE_02)
    (batch / f"carol_{A1}.ipynb").write_text('{"cells": [ this is not json')
    out = tmp_path / "out"
    completed = run_cli("--lang", "ko", "grade", str(batch), "--out", str(out), "--seed", "7", "--jobs", "1",
                        "--sandbox", _sandbox())
    assert completed.returncode == 0, completed.stderr[-3000:]
    title = messages.catalog("ko")["report.class_terminal_title"].split(":")[0]
    lines = completed.stdout.splitlines()
    report_lines = [line for line in lines[next(i for i, line in enumerate(lines) if line.startswith(title)):]
                    if line.strip()]
    assert len(report_lines) >= 4 and all(HANGUL.search(line) for line in report_lines), report_lines
    with messages.using("ko"):
        jittable = f"sum_of_positive_numbers: {messages.check_name('jittable')}"
    assert any(jittable in line for line in report_lines), report_lines
    page = _Words()
    page.feed((out / class_report.FILENAME).read_text(encoding="utf-8"))
    english = [w.strip() for w in page.words if w.strip() not in ("", A1, A2) and not HANGUL.search(w)]
    assert page.lang == "ko" and page.words and not english, f"English in the Korean report.html: {english}"


# --- in a real browser -------------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def test_report_renders_in_a_headless_browser(written, graded, report, tmp_path):
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if missing:
        pytest.fail(f"the browser test needs Chromium and chromedriver; missing {', '.join(missing)}. Install them "
                    "with scripts/install_browser.sh (as root or with sudo; on Debian: apt-get install chromium "
                    "chromium-driver).")
    try:
        from selenium import webdriver
        from selenium.common.exceptions import NoAlertPresentException
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
    except ImportError as error:
        pytest.fail(f"the browser test needs selenium ({error}): pip install -e '.[dev]'")
    out, _, _ = graded
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1000", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER, log_output=str(tmp_path / "driver.log")))
    try:
        driver.set_page_load_timeout(60)
        uri = (out / class_report.FILENAME).resolve().as_uri()
        driver.get(uri)
        assert driver.title == class_report.REPORT_TEXT["report.class_title"]
        images = driver.execute_script(
            "return Array.from(document.images, i => [i.complete, i.naturalWidth, i.naturalHeight,"
            " i.getBoundingClientRect().width, i.getBoundingClientRect().height]);")
        assert len(images) == 2 * len(report.scores)
        assert all(done and natural_w > 0 and natural_h > 0 and shown_w > 0 and shown_h > 0
                   for done, natural_w, natural_h, shown_w, shown_h in images), images
        assert driver.execute_script("return document.scripts.length;") == 0
        body = driver.find_element(By.TAG_NAME, "body").text
        assert HOSTILE_MESSAGE.split("<a")[0] in body  # shown as text, not run
        assert "https://docs.jax.dev" in body  # a URL in feedback still reads as one
        for heading in ("report.class_students_heading", "report.class_not_attempted_heading",
                        "report.class_scores_heading", "report.class_checks_heading", "report.class_failures_heading",
                        "report.class_not_loaded_heading", "report.class_slowest_heading"):
            assert class_report.REPORT_TEXT[heading] in body
        try:
            alert = driver.switch_to.alert.text
        except NoAlertPresentException:
            alert = None
        assert alert is None
        errors = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
        assert errors == []
        requested = [json.loads(entry["message"])["message"] for entry in driver.get_log("performance")]
        sent = [m["params"] for m in requested if m["method"] == "Network.requestWillBeSent"]
        ours = [p["request"]["url"] for p in sent if p.get("documentURL") == uri]  # not the browser's own start page
        assert ours and ours[0] == uri and all(url.startswith("data:image/svg+xml;base64,") for url in ours[1:]), ours
        elsewhere = [p["request"]["url"] for p in sent if not p["request"]["url"].startswith(("file:", "data:",
                                                                                              "chrome:"))]
        assert not elsewhere
        height = driver.execute_script("return document.documentElement.scrollHeight;")
        driver.set_window_size(1280, min(max(height, 1000), 16000))
        screenshot = tmp_path / "report.png"
        assert driver.save_screenshot(str(screenshot)) and screenshot.stat().st_size > 10_000
    finally:
        driver.quit()
