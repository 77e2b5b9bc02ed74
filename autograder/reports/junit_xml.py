"""JUnit XML for CI: one <testsuite> per submission, one <testcase> per check.

CI systems (GitLab, Jenkins, GitHub's test reporters, Azure Pipelines) read
the common JUnit shape:

    <testsuites name="autograder" tests= failures= errors= time=>
      <testsuite name="<submission>" tests= failures= errors= skipped= time=>
        <properties><property name="assignment" value="02_where"/> ...</properties>
        <testcase classname="<assignment>.<submission>" name="selu: correct" />
        <testcase classname=... name="selu: jittable">
          <failure message="<the feedback's first line>" type="check failed">the full feedback</failure>
        </testcase>
        <system-out>the submission's notes (the results.json "output")</system-out>
      </testsuite>
    </testsuites>

A check that did not pass is a <failure> carrying its feedback, except a
property check that was not checked because the function's values are
wrong: it is <skipped message="Not checked: ..."/>. JUnit's skipped means
"did not run", which is what happened; the mistake that kept it from running
is already one <failure> (the values check), so CI still fails, once per
mistake, and test reporters show the reason beside the skipped case. A submission
that could not be loaded, or whose grading crashed, still lists every check
of its assignment (the grader writes them all at zero with the reason), so
each is a failure with that reason; its `problem` is a property and the
failure's type; otherwise the type is the kind of the check's failure
(extra_data.failure.kind: "wrong values", "student code", else "check
failed"). A submission that was not graded at all (reports.grade_status:
the batch was interrupted, the machine too busy, the kit failed) is no
failure of the student's: each of its checks is an <error> of type
"not graded", so CI still goes red but no reporter counts a failed check;
a single check in which the kit itself failed is an <error> as well.
A result without any check (its assignment was not known) becomes one
failing testcase named "grading" with the reason, so a broken submission is
never an empty, green suite. Per-check times are not
measured, so testcases carry no time; a suite's time is the submission's
grading time when the result records it.

Any text is made valid XML 1.0: characters XML 1.0 forbids (NUL and other
control characters except tab, newline and carriage return, lone
surrogates, U+FFFE and U+FFFF) become U+FFFD, and ElementTree escapes the
rest. The input is the list of results.json dicts `grade_batch` returns.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from autograder.reports import grade_status, grades_csv
from autograder.reports.result_json import check_id, mapping, mappings, number, test_status

SUITES_NAME = "autograder"
MESSAGE_MAX_CHARS = 500  # the failure's message attribute: the feedback's first line, cut to this
# Everything XML 1.0 does not allow in a document (its `Char` production), surrogates included.
_FORBIDDEN = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def clean(value: object) -> str:
    """`value` as text that XML 1.0 can hold: forbidden characters become U+FFFD."""
    text = value if isinstance(value, str) else "" if value is None else str(value)
    return _FORBIDDEN.sub("\ufffd", text)


def render(results: list[dict]) -> bytes:
    """The JUnit XML document (UTF-8, with an XML declaration) for these results.json dicts."""
    root = ET.Element("testsuites", {"name": SUITES_NAME})
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seconds = 0.0
    for result in results:
        suite = _suite(result if isinstance(result, dict) else {})
        root.append(suite)
        for key in totals:
            totals[key] += int(suite.get(key, "0"))
        seconds += float(suite.get("time", "0"))
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", _seconds(seconds))
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write(results: list[dict], path: Path | str) -> None:
    """Write render(results) to `path` atomically: a fresh temporary file beside it, then a rename.

    The temporary name is random and created exclusively without following
    a symbolic link, so nothing planted there is opened; the rename replaces
    whatever is at `path` (a symbolic link itself, not what it points to),
    and a directory there is moved aside with a note, as the out dir's own
    writers do (reports/out_dir.py): the file is always written.
    The parent directory is created if it does not exist.
    """
    path = Path(path)
    data = render(results)
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True)
    for _ in range(16):
        temporary = directory / f".{path.name}.{secrets.token_hex(8)}.tmp"
        try:
            fd = os.open(temporary, _CREATE, 0o666)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(f"no free temporary name beside {path} after 16 tries; remove the .*.tmp files there")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.replace(temporary, path)
        except OSError as error:
            if error.errno not in (errno.EISDIR, errno.ENOTEMPTY, errno.EEXIST):
                raise
            _move_aside(path)
            os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _suite(result: dict) -> ET.Element:
    extra = mapping(result.get("extra_data"))
    submission = clean(extra.get("submission") or extra.get("path") or "submission")
    assignment = clean(extra.get("assignment") or "")
    classname = f"{assignment}.{submission}" if assignment else submission
    problem = clean(extra.get("problem") or "")
    output = clean(result.get("output") or "")
    status_of = grade_status.of(result)
    suite = ET.Element("testsuite", {"name": submission})
    properties = ET.SubElement(suite, "properties")
    tests = mappings(result.get("tests"))
    max_score = extra.get("max_score", sum(number(t.get("max_score")) for t in tests))
    for name, value in (("assignment", assignment), ("student", extra.get("student")),
                        ("score", number(result.get("score"))), ("max_score", number(max_score)),
                        ("seed", extra.get("seed")), ("sandbox", extra.get("sandbox")), ("problem", problem),
                        ("status", status_of.status), ("path", grades_csv.shown_path(extra))):
        if value not in (None, ""):
            ET.SubElement(properties, "property", {"name": name, "value": clean(value)})
    failures = skipped = errors = 0
    for test in tests:
        case = ET.SubElement(suite, "testcase", {"classname": classname, "name": clean(check_id(test) or "check")})
        status = test_status(test)
        if status_of.status == grade_status.NOT_GRADED:
            errors += 1
            _error(case, output or status_of.reason, status_of.reason)
        elif status == "not_checked":
            skipped += 1
            ET.SubElement(case, "skipped", {"message": _first_line(clean(test.get("output") or ""))})
        elif status == "failed" and _failure_kind(test) == "internal":  # the kit failed in this check
            errors += 1
            _error(case, clean(test.get("output") or "") or output or "failed", "the kit failed in this check")
        elif status == "failed":
            failures += 1
            feedback = clean(test.get("output") or "") or output or "failed"
            _failure(case, feedback, problem or _failure_type(test))
    if not tests:
        case = ET.SubElement(suite, "testcase", {"classname": classname, "name": "grading"})
        if status_of.status == grade_status.NOT_GRADED:
            errors += 1
            _error(case, output or status_of.reason, status_of.reason)
        else:
            failures += 1
            _failure(case, output or "no check of this submission was graded", problem or "not graded")
    if output:
        ET.SubElement(suite, "system-out").text = output
    suite.set("tests", str(max(len(tests), 1)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", str(skipped))
    grading = mapping(extra.get("grading"))
    suite.set("time", _seconds(number(grading.get("seconds"))))
    return suite


def _failure_kind(test: dict) -> str:
    """The kind of a check's failure as results.json records it (check/failure.FailureKind), or ""."""
    kind = mapping(mapping(test.get("extra_data")).get("failure")).get("kind")
    return kind if isinstance(kind, str) else ""


def _failure_type(test: dict) -> str:
    """A failure's type: its kind in words ("wrong values", "student code"), else "check failed"."""
    kind = _failure_kind(test)
    return kind.replace("_", " ") if kind and kind != "property" else "check failed"


def _failure(case: ET.Element, feedback: str, kind: str) -> None:
    failure = ET.SubElement(case, "failure", {"message": _first_line(feedback), "type": kind})
    failure.text = feedback


def _error(case: ET.Element, detail: str, reason: str) -> None:
    """A check that was not graded (its submission was not, or the kit failed in it): the grading's error, not
    the student's."""
    error = ET.SubElement(case, "error", {"message": _first_line(detail), "type": f"not graded: {reason}"})
    error.text = detail


def _first_line(feedback: str) -> str:
    """The feedback's first non-blank line, cut to MESSAGE_MAX_CHARS: a message attribute."""
    first_line = next((line for line in feedback.splitlines() if line.strip()), feedback)
    if len(first_line) > MESSAGE_MAX_CHARS:
        first_line = first_line[:MESSAGE_MAX_CHARS - 1] + "…"
    return first_line


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.3f}"


def _move_aside(path: Path) -> None:
    """Rename the directory at `path` to a hidden name beside it, and say so (its contents stay as they were)."""
    aside = path.with_name(f".{path.name}.replaced-{secrets.token_hex(4)}")
    os.rename(path, aside)
    print(f"autograder: {path} was a directory; moved it aside to {aside} and wrote the JUnit file in its place.",
          file=sys.stderr)
