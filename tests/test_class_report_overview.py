"""What a teacher looks at first in the class report: every student, unfinished work apart, whole words.

Built from results.json contents written here (the shape `autograder grade`
writes), so these tests need no grading run; test_class_report.py covers a
real batch and the page in a browser.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from autograder.catalog import messages
from autograder.reports import class_report

A = "01_immutable_updates"
STUB = messages.text("call.not_implemented", function="{f}")
HINT = ("Hint: a functional `set` writes each bin once however often its index repeats, so repeated indices are "
        "lost; accumulate instead with the functional update that adds once per occurrence.")


def _result(submission: str, student: str, tests: list[tuple[str, bool, str]], *, problem: str | None = None,
            output: str = "") -> dict:
    """A results.json: `tests` as (check name, passed, feedback), 1 point each."""
    return {"score": float(sum(passed for _, passed, _ in tests)), "output": output,
            "tests": [{"name": name, "score": float(passed), "max_score": 1.0,
                       "status": "passed" if passed else "failed", "output": feedback}
                      for name, passed, feedback in tests],
            "extra_data": {"submission": submission, "student": student, "assignment": A, "seed": 7,
                           "max_score": float(len(tests)), "problem": problem, "finished": True}}


def _stub(function: str) -> str:
    return STUB.replace("{f}", function)


CHECKS = ["histogram: correct", "histogram: duplicates counted", "swap_rows: correct", "swap_rows: jittable"]


def _class() -> list[dict]:
    """Nine untouched stubs, two students with the same mistake, one who did it all, one unreadable notebook."""
    results = [_result(f"stub{i}_{A}", f"stub{i}", [(name, False, _stub(name.split(":")[0])) for name in CHECKS])
               for i in range(9)]
    mistake = [(CHECKS[0], True, ""), (CHECKS[1], False, f"histogram(i32[9], 3) returned [1 1 1]\n{HINT}"),
               (CHECKS[2], False, _stub("swap_rows")), (CHECKS[3], False, _stub("swap_rows"))]
    results += [_result(f"kim_{A}", "kim", mistake), _result(f"lee_{A}", "lee", mistake),
                _result(f"ana_{A}", "ana", [(name, True, "") for name in CHECKS]),
                _result(f"zed_{A}", "zed", [(name, False, "cannot read") for name in CHECKS], problem="unreadable",
                        output="zed.ipynb is not a valid notebook")]
    return results


class _Tables(HTMLParser):
    """The rows of every table in a page: cell texts, and the links in each row."""

    def __init__(self):
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.links: dict[str, list[str]] = {}
        self._section = ""
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self._section = attrs.get("id", "")
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "a" and self._row is not None:
            self.links.setdefault(self._section, []).append(attrs.get("href", ""))

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables.setdefault(self._section, []).append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data + " ")


def _page(results: list[dict]) -> _Tables:
    parser = _Tables()
    parser.feed(class_report.render_html(class_report.build(results)))
    return parser


def test_the_report_has_a_row_per_student_with_score_look_and_feedback_link():
    page = _page(_class())
    header, *rows = page.tables["students"]
    assert header == [class_report.REPORT_TEXT[k] for k in (
        "report.class_col_student", "report.class_col_assignment", "report.class_col_score",
        "report.class_col_look", "report.class_col_feedback")]
    by_student = {row[0].split()[0]: row for row in rows}
    assert sorted(by_student) == sorted(["ana", "kim", "lee", "zed"] + [f"stub{i}" for i in range(9)])
    assert by_student["kim"][2] == "1 of 4" and by_student["ana"][2] == "4 of 4"
    assert by_student["zed"][3] == class_report.problem_reason("unreadable") and by_student["ana"][3] == ""
    assert [row[0].split()[0] for row in rows] == sorted(by_student)  # sorted by student
    assert f"kim_{A}/results.json" in page.links["students"]  # the submission's directory in the out dir


def test_unfinished_stubs_are_counted_as_not_attempted_not_as_failures():
    report = class_report.build(_class())
    assert [(f.check, f.count) for f in report.failures] == [("histogram: duplicates counted", 2)]
    assert [(row.function, row.count) for row in report.not_attempted] == [("swap_rows", 11), ("histogram", 9)]
    section = _page(_class()).tables["not-attempted"]
    assert [row[:3] for row in section[1:]] == [["11", A, "swap_rows"], ["9", A, "histogram"]]
    terminal = class_report.render_terminal(report)
    assert "Not attempted: swap_rows (11), histogram (9)" in terminal
    assert not re.search(r"^  \d\. .*not implemented yet", terminal, re.M)


def test_the_terminal_summary_cuts_a_long_hint_between_words():
    report = class_report.build(_class())
    terminal = class_report.render_terminal(report).splitlines()
    [hint_line] = [line for line in terminal if line.strip().startswith("Hint:")]
    assert len(hint_line) <= class_report.TERMINAL_WIDTH and hint_line.endswith("…")
    shown = hint_line.strip().removesuffix("…")
    assert HINT.startswith(shown) and HINT[len(shown)] in " ,;:", f"cut inside a word: {hint_line!r}"


def test_a_stub_whose_feedback_is_korean_is_not_attempted_in_an_english_report():
    """A Korean notebook's checks speak Korean (its setup cell); the instructor's report still counts its stubs."""
    with messages.using("ko"):
        korean = messages.text("call.not_implemented", function="swap_rows")
    results = [_result("kim_ko", "kim_ko", [(CHECKS[0], True, ""), (CHECKS[1], True, ""),
                                             (CHECKS[2], False, korean), (CHECKS[3], False, korean)])]
    report = class_report.build(results)
    assert [(row.function, row.count) for row in report.not_attempted] == [("swap_rows", 1)]
    assert not report.failures
