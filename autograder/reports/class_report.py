"""The class report: `report.html` in the out dir, and a short summary for the terminal.

Built from the results.json contents of a batch (`build`), it shows, per
assignment, the distribution of scores and the pass rate of every check; the
most common failures, each with the hint its feedback gives; the submissions
that failed to load; and the slowest submissions. `render_html` makes one
self-contained file: inline CSS, plots drawn with matplotlib (Agg) and
embedded as base64 PNG, no script, no URL of anything to fetch (its content
security policy forbids both, so a browser loads nothing else even if asked).

Submission names, students, paths and feedback come from students' files and
code: every one is HTML-escaped, with control characters shown as escapes
(on the terminal too), and a `scheme://` in it is written so that the file
holds no URL; the browser still shows the same text.
"""

from __future__ import annotations

import base64
import collections
import dataclasses
import html
import io
import math
import re
import statistics
import string
import unicodedata
import urllib.parse
from typing import TypeGuard

from autograder.catalog import messages
from autograder.reports.out_dir import OutDir
from autograder.reports.result_json import mapping, mappings

FILENAME = "report.html"
COMMON_FAILURES = 15  # in the HTML report
TERMINAL_FAILURES = 3
SLOWEST = 10
LINE_CHARS = 400  # of one line of feedback shown in the HTML report
TERMINAL_WIDTH = 100  # a failure's line and its hint are cut to this

# The report's sentences, to be moved into the message catalog (messages.py).
REPORT_TEXT: dict[str, str] = {
    "report.class_title": "Class report",
    "report.class_overview": "{count} submission(s) of {assignments} assignment(s), graded with seed {seeds}.",
    "report.class_overview_no_seed": "{count} submission(s) of {assignments} assignment(s).",
    "report.class_nothing": "No results to report.",
    "report.class_contents": "Contents",
    "report.class_scores_heading": "Scores by assignment",
    "report.class_scores_note": "Every submission counts, including those that failed to load (they score 0).",
    "report.class_assignment_heading": "{assignment}",
    "report.class_no_assignment": "(no assignment)",
    "report.class_col_assignment": "Assignment",
    "report.class_col_submissions": "Submissions",
    "report.class_col_mean": "Mean",
    "report.class_col_median": "Median",
    "report.class_col_min": "Min",
    "report.class_col_max": "Max",
    "report.class_col_out_of": "Out of",
    "report.class_col_full_marks": "Full marks",
    "report.class_col_check": "Check",
    "report.class_col_points": "Points",
    "report.class_col_passed": "Passed",
    "report.class_col_pass_rate": "Pass rate",
    "report.class_col_count": "Submissions",
    "report.class_col_failure": "Failure (first line of feedback)",
    "report.class_col_hint": "Hint",
    "report.class_col_submission": "Submission",
    "report.class_student": "student {student}",
    "report.class_col_problem": "Problem",
    "report.class_col_detail": "Detail",
    "report.class_col_seconds": "Seconds",
    "report.class_col_memory": "Sandbox peak memory (MiB)",
    "report.class_col_path": "File",
    "report.class_passed_of": "{passed} of {total}",
    "report.class_checks_heading": "Pass rate of every check",
    "report.class_failures_heading": "Most common failures",
    "report.class_failures_note": "Failures of the same check whose feedback starts alike (numbers and array values aside) are counted together; submissions that failed to load are listed on their own below.",
    "report.class_no_failures": "No check failed.",
    "report.class_who": "Submissions: {names}",
    "report.class_not_loaded_heading": "Submissions that failed to load",
    "report.class_none_not_loaded": "Every submission loaded.",
    "report.class_look_heading": "Other submissions to look at",
    "report.class_slowest_heading": "Slowest submissions",
    "report.class_no_timings": "No grading times were recorded.",
    "report.class_histogram_alt": "Histogram of the scores of {assignment}: {count} submission(s), mean {mean:.3g}, median {median:.3g} of {max_score:g}.",
    "report.class_histogram_x": "score (of {max_score:g})",
    "report.class_histogram_y": "submissions",
    "report.class_histogram_mean": "mean {mean:.3g}",
    "report.class_histogram_median": "median {median:.3g}",
    "report.class_pass_rates_alt": "Pass rate of each of the {count} checks of {assignment}, from {lowest:.0f}% to {highest:.0f}%.",
    "report.class_pass_rates_x": "pass rate (%)",
    "report.class_problem_unreadable": "the file could not be read as a notebook",
    "report.class_problem_timeout": "its top-level code did not finish within the time limit",
    "report.class_problem_exited": "its top-level code ended the grading process",
    "report.class_problem_sandbox_failed": "the grader could not start a sandbox for it",
    "report.class_problem_child_failed": "the grader could not run it",
    "report.class_problem_grader_error": "grading did not finish",
    "report.class_problem_no_notebook": "no notebook handed in (its result names the files found)",
    "report.class_problem_other": "it was not graded normally ({problem})",
    "report.class_look_mismatch": "graded as another assignment than its file name or metadata says",
    "report.class_look_tampered": "its code changed the grading environment",
    "report.class_look_internal_error": "the grader failed in one of its checks",
    "report.class_look_identity": "who handed it in is not certain from where it sits",
    "report.class_look_ignored": "files not graded (one per assignment is): {files}",
    "report.class_terminal_title": "Class report: {count} submission(s), {assignments} assignment(s); {filename} in the out dir",
    "report.class_terminal_scores": "{assignment}: {count} submission(s), mean {mean:.3g}, median {median:.3g}, min {minimum:g}, max {maximum:g} of {max_score:g}",
    "report.class_terminal_failures": "Most common failures:",
    "report.class_terminal_failure": "{rank}. {assignment} / {check}: {count} submission(s): {cause}",
    "report.class_terminal_look": "Need a look ({count}):",
    "report.class_terminal_look_item": "{submission} ({assignment}): {reason}",
    "report.class_terminal_all_fine": "No submission needs a look.",
    "report.class_students_heading": "Every submission",
    "report.class_students_note": "By student. Feedback opens the submission's results.json: every check, its points and the feedback the student gets.",
    "report.class_col_student": "Student",
    "report.class_col_score": "Score",
    "report.class_col_look": "Needs a look",
    "report.class_col_feedback": "Feedback",
    "report.class_feedback_link": "results.json",
    "report.class_score_of": "{score} of {max_score}",
    "report.class_not_attempted_heading": "Not attempted",
    "report.class_not_attempted_note": "Functions a submission left as the released stub (it still raises NotImplementedError). Their checks are not counted among the most common failures.",
    "report.class_none_not_attempted": "Every submission attempted every function.",
    "report.class_col_function": "Function",
    "report.class_terminal_not_attempted": "Not attempted: {functions}",
    "report.class_terminal_not_attempted_item": "{function} ({count})",
}

# Problems (results.json's extra_data.problem) that mean the notebook was not loaded, so no check saw its code.
LOAD_PROBLEMS = ("unreadable", "timeout", "exited", "sandbox_failed", "child_failed", "grader_error", "no_notebook")


def _text(key: str, **fields: object) -> str:
    """A sentence of the report: from the message catalog once it is there, else from REPORT_TEXT."""
    if messages.has(key):
        return messages.text(key, **fields)
    return REPORT_TEXT[key].format(**fields)


# --- The summary --------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class ScoreDistribution:
    """The scores of one assignment's submissions."""
    assignment: str | None
    count: int
    max_score: float
    mean: float
    median: float
    minimum: float
    maximum: float
    full_marks: int
    scores: tuple[float, ...]  # ascending


@dataclasses.dataclass(frozen=True)
class CheckPassRate:
    """How many of an assignment's submissions passed one check (`histogram: duplicates counted`)."""
    assignment: str | None
    check: str
    points: float
    passed: int
    total: int

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0


@dataclasses.dataclass(frozen=True)
class CommonFailure:
    """Failures of one check whose feedback starts with the same line, numbers and array values aside."""
    assignment: str | None
    check: str
    cause: str  # the first line of feedback, normalized (see `normalize_feedback`)
    example: str  # the first line of one of these submissions' feedback, as it was
    hint: str | None  # the feedback's "Hint:" line most of these submissions got
    points: float  # what each of them lost
    submissions: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.submissions)


@dataclasses.dataclass(frozen=True)
class NotLoaded:
    """A submission whose notebook did not load: no check saw its code."""
    submission: str
    student: str
    assignment: str | None
    path: str
    problem: str  # one of LOAD_PROBLEMS, or what extra_data said
    detail: str  # the first line of its notes


@dataclasses.dataclass(frozen=True)
class SlowSubmission:
    submission: str
    student: str
    assignment: str | None
    seconds: float
    sandbox_peak_rss_mb: float | None


@dataclasses.dataclass(frozen=True)
class NeedsALook:
    submission: str
    student: str
    assignment: str | None
    reason: str  # a sentence of the report
    detail: str


@dataclasses.dataclass(frozen=True)
class NotAttempted:
    """A function some submissions left as the released stub: its checks fail for that, not for a mistake."""
    assignment: str | None
    function: str
    submissions: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.submissions)


@dataclasses.dataclass(frozen=True)
class StudentRow:
    """One submission as a teacher first looks at it: who, the score, and why it needs a look, if it does."""
    submission: str  # also the name of its directory in the out dir, where its results.json is
    student: str
    assignment: str | None
    score: float
    max_score: float
    looks: tuple[str, ...]  # the reasons it needs a look; empty if it does not


@dataclasses.dataclass(frozen=True)
class ClassReport:
    submissions: int
    seeds: tuple[int, ...]
    scores: tuple[ScoreDistribution, ...]  # by assignment name
    checks: tuple[CheckPassRate, ...]  # by assignment, then in the order the results list them
    failures: tuple[CommonFailure, ...]  # most common first
    not_loaded: tuple[NotLoaded, ...]
    slowest: tuple[SlowSubmission, ...]  # slowest first, at most SLOWEST
    needs_a_look: tuple[NeedsALook, ...]  # the submissions that failed to load first
    not_attempted: tuple[NotAttempted, ...] = ()  # most often left as a stub first
    students: tuple[StudentRow, ...] = ()  # by student, then submission


def build(results: list[dict]) -> ClassReport:
    """The class report of a batch's results.json contents (as `batch.grade_batch` returns them)."""
    entries = [_Entry.of(index, data) for index, data in enumerate(results) if isinstance(data, dict)]
    not_loaded = [_not_loaded(entry) for entry in entries if entry.problem is not None]
    unloaded = {entry.index for entry in entries if entry.problem is not None}
    loaded = [entry for entry in entries if entry.index not in unloaded]
    stubs = _stubs(loaded)
    needs_a_look = _needs_a_look(entries, not_loaded)
    return ClassReport(
        submissions=len(entries),
        seeds=tuple(sorted({entry.seed for entry in entries if entry.seed is not None})),
        scores=tuple(_distributions(entries)),
        checks=tuple(_pass_rates(entries)),
        failures=tuple(_failures(loaded, stubs)),
        not_loaded=tuple(not_loaded),
        slowest=tuple(_slowest(entries)),
        needs_a_look=tuple(needs_a_look),
        not_attempted=tuple(_not_attempted(loaded, stubs)),
        students=tuple(_students(entries, needs_a_look)),
    )


@dataclasses.dataclass
class _Entry:
    index: int
    submission: str
    student: str
    assignment: str | None
    path: str
    seed: int | None
    score: float
    max_score: float
    tests: list[dict]
    notes: list[str]
    problem: str | None
    mismatch: str | None
    extra: dict

    @classmethod
    def of(cls, index: int, data: dict) -> _Entry:
        extra = mapping(data.get("extra_data"))
        tests = mappings(data.get("tests"))
        submission = _string(extra.get("submission")) or f"#{index + 1}"
        seed = extra.get("seed")
        max_score = _number(extra.get("max_score"), default=sum(_number(t.get("max_score")) for t in tests))
        output = _string(data.get("output"))
        entry = cls(index=index, submission=submission, student=_string(extra.get("student")),
                    assignment=_string(extra.get("assignment")) or None, path=_string(extra.get("path")),
                    seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
                    score=_number(data.get("score")), max_score=max_score, tests=tests,
                    notes=[line for line in output.splitlines() if line.strip()], problem=None,
                    mismatch=_string(extra.get("assignment_mismatch")) or None, extra=extra)
        entry.problem = _load_problem(entry, output)
        return entry


def _load_problem(entry: _Entry, output: str) -> str | None:
    """Why the notebook did not load, from extra_data.problem; results written before it existed, by their shape."""
    extra = entry.extra
    if "problem" in extra:
        problem = extra["problem"]
        return problem if isinstance(problem, str) and problem else None
    if extra.get("finished") is not True:
        return "grader_error"  # the batch's placeholder, or what it wrote when a worker failed
    if output and entry.tests and all(t.get("status") != "passed" and t.get("output") == output for t in entry.tests):
        return "unreadable"  # grade.unfinished_results.unreadable_result: every check at zero with the same feedback
    return None


def _distributions(entries: list[_Entry]) -> list[ScoreDistribution]:
    groups: dict[str | None, list[_Entry]] = collections.defaultdict(list)
    for entry in entries:
        groups[entry.assignment].append(entry)
    distributions = []
    for assignment in sorted(groups, key=_assignment_order):
        group = groups[assignment]
        scores = sorted(entry.score for entry in group)
        max_score = max(entry.max_score for entry in group)
        distributions.append(ScoreDistribution(
            assignment=assignment, count=len(scores), max_score=max_score, mean=statistics.fmean(scores),
            median=statistics.median(scores), minimum=scores[0], maximum=scores[-1],
            full_marks=sum(1 for entry in group if entry.max_score > 0 and entry.score >= entry.max_score),
            scores=tuple(scores)))
    return distributions


def _pass_rates(entries: list[_Entry]) -> list[CheckPassRate]:
    counts: dict[tuple[str | None, str], list] = {}  # (assignment, check) -> [points, passed, total]
    for entry in entries:
        seen = set()
        for test in entry.tests:
            check = _string(test.get("name"))
            if check in seen:
                continue
            seen.add(check)
            row = counts.setdefault((entry.assignment, check), [0.0, 0, 0])
            row[0] = max(row[0], _number(test.get("max_score")))
            row[1] += test.get("status") == "passed"
            row[2] += 1
    order = {assignment: i for i, assignment in enumerate(sorted({a for a, _ in counts}, key=_assignment_order))}
    keys = sorted(counts, key=lambda key: order[key[0]])  # stable: the checks keep the results' order
    return [CheckPassRate(assignment, check, *counts[(assignment, check)]) for assignment, check in keys]


def _failures(entries: list[_Entry], stubs: set[tuple[int, str]] | None = None) -> list[CommonFailure]:
    """The failed checks grouped by cause; a function left as a stub (`stubs`) is no failure of its own."""
    stubs = stubs or set()
    groups: dict[tuple[str | None, str, str], dict] = {}
    for entry in entries:
        for test in entry.tests:
            if test.get("status") == "passed" or (entry.index, _function(test)) in stubs:
                continue
            check = _string(test.get("name"))
            feedback = _string(test.get("output"))
            first = next((line.strip() for line in feedback.splitlines() if line.strip()), "")
            key = (entry.assignment, check, normalize_feedback(first))
            group = groups.setdefault(key, {"example": first, "hints": collections.Counter(), "submissions": [],
                                            "points": 0.0})
            if entry.submission not in group["submissions"]:
                group["submissions"].append(entry.submission)
            group["points"] = max(group["points"], _number(test.get("max_score")))
            hint = hint_of(feedback)
            if hint is not None:
                group["hints"][hint] += 1
    failures = [CommonFailure(assignment=assignment, check=check, cause=cause, example=group["example"],
                              hint=group["hints"].most_common(1)[0][0] if group["hints"] else None,
                              points=group["points"], submissions=tuple(group["submissions"]))
                for (assignment, check, cause), group in groups.items()]
    failures.sort(key=lambda f: (-f.count, -f.count * f.points, _assignment_order(f.assignment), f.check, f.cause))
    return failures


def _function(test: dict) -> str:
    """The function a check tests: `histogram` of `histogram: duplicates counted`."""
    return _string(test.get("name")).split(":")[0].strip()


def _stubs(entries: list[_Entry]) -> set[tuple[int, str]]:
    """(entry index, function) of every function a submission did not attempt: its feedback says it is a stub."""
    patterns = [_pattern("call.not_implemented"), _pattern("call.missing_not_implemented")]
    stubs = set()
    for entry in entries:
        for test in entry.tests:
            feedback = _string(test.get("output"))
            if test.get("status") != "passed" and any(p.search(line) for p in patterns
                                                          for line in feedback.splitlines()[:1]):
                stubs.add((entry.index, _function(test)))
    return stubs


def _not_attempted(entries: list[_Entry], stubs: set[tuple[int, str]]) -> list[NotAttempted]:
    groups: dict[tuple[str | None, str], list[str]] = {}
    for entry in entries:
        for function in dict.fromkeys(_function(test) for test in entry.tests):  # in the results' order
            if (entry.index, function) in stubs:
                groups.setdefault((entry.assignment, function), []).append(entry.submission)
    rows = [NotAttempted(assignment, function, tuple(submissions))
            for (assignment, function), submissions in groups.items()]
    rows.sort(key=lambda row: (-row.count, _assignment_order(row.assignment)))  # stable: the results' order
    return rows


def _students(entries: list[_Entry], looks: list[NeedsALook]) -> list[StudentRow]:
    reasons: dict[str, list[str]] = collections.defaultdict(list)
    for look in looks:
        reasons[look.submission].append(look.reason)
    rows = [StudentRow(entry.submission, entry.student, entry.assignment, entry.score, entry.max_score,
                       tuple(dict.fromkeys(reasons.get(entry.submission, ())))) for entry in entries]
    rows.sort(key=lambda row: ((row.student or row.submission).casefold(), _assignment_order(row.assignment),
                               row.submission))
    return rows


def _not_loaded(entry: _Entry) -> NotLoaded:
    detail = next((note for note in entry.notes if note != entry.mismatch), "")
    return NotLoaded(submission=entry.submission, student=entry.student, assignment=entry.assignment,
                     path=entry.path, problem=entry.problem or "", detail=detail)


def _slowest(entries: list[_Entry]) -> list[SlowSubmission]:
    timed = []
    for entry in entries:
        grading = entry.extra.get("grading")
        if not isinstance(grading, dict) or not _is_number(grading.get("seconds")):
            continue
        memory = grading.get("sandbox_peak_rss_mb")
        timed.append(SlowSubmission(entry.submission, entry.student, entry.assignment, float(grading["seconds"]),
                                    float(memory) if _is_number(memory) else None))
    timed.sort(key=lambda s: (-s.seconds, s.submission))
    return timed[:SLOWEST]


def _needs_a_look(entries: list[_Entry], not_loaded: list[NotLoaded]) -> list[NeedsALook]:
    look = [NeedsALook(n.submission, n.student, n.assignment, problem_reason(n.problem), n.detail) for n in not_loaded]
    tampered = [_pattern("load.tampered"), _pattern("call.tampered")]
    internal = _pattern("report.internal_error")
    for entry in entries:
        # Who handed it in (submission_identity's notes, recorded by the batch), whether it loaded or not.
        identity = _strings(entry.extra.get("identity_notes"))
        if identity:
            look.append(NeedsALook(entry.submission, entry.student, entry.assignment,
                                   _text("report.class_look_identity"), identity[0]))
        look.extend(_file_choice_looks(entry))
        if entry.problem is not None:
            continue
        if entry.mismatch:
            look.append(NeedsALook(entry.submission, entry.student, entry.assignment,
                                   _text("report.class_look_mismatch"), entry.mismatch))
        texts = entry.notes + [_string(t.get("output")) for t in entry.tests if t.get("status") != "passed"]
        for reason, patterns in (("report.class_look_tampered", tampered), ("report.class_look_internal_error",
                                                                             [internal])):
            found = next((line for text in texts for line in text.splitlines()
                          if any(p.search(line) for p in patterns)), None)
            if found is not None:
                look.append(NeedsALook(entry.submission, entry.student, entry.assignment, _text(reason), found))
    return look


def _file_choice_looks(entry: _Entry) -> list[NeedsALook]:
    """The files of the student's entry the batch did not grade (load/submission_choice), recorded in extra_data.

    An entry with no notebook at all is listed with the submissions that did not load (problem no_notebook).
    """
    files = _strings(entry.extra.get("ignored_files"))
    if not files:
        return []
    listed = ", ".join(files[:10]) + (f", … (+{len(files) - 10})" if len(files) > 10 else "")
    return [NeedsALook(entry.submission, entry.student, entry.assignment,
                       _text("report.class_look_ignored", files=listed), listed)]


def problem_reason(problem: str) -> str:
    """What a load problem means, in a few words."""
    key = f"report.class_problem_{problem}"
    return _text(key) if key in REPORT_TEXT else _text("report.class_problem_other", problem=problem)


# --- Feedback ------------------------------------------------------------------------------------

_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?!\w|\.\d)"
                     r"|(?<![\w.])[-+]?(?:nan|inf)\b")
_ARRAY = re.compile(r"\[\s*#\.?(?:[\s,]*(?:#\.?|\.\.\.))*[\s,]*\]")


def normalize_feedback(line: str) -> str:
    """`line` with every number `#` and every bracketed list of numbers `[#]`: failures of the same cause look alike.

    `set_element(f32[5], 4, -0.4568) raised TypeError ... [cell 8, line 7]` and
    the same with other values, shapes or line numbers both become
    `set_element(f32[#], #, #) raised TypeError ... [cell #, line #]`; the
    dtype in `f32` or `int32` stays.
    """
    line = _HEX.sub("0x#", line.strip())
    line = _NUMBER.sub("#", line)
    return _ARRAY.sub("[#]", line)


def hint_prefixes() -> tuple[str, ...]:
    """How a hint line starts: "Hint:" in English, and in the current language."""
    prefixes = {"Hint:"}
    try:
        prefixes.add(messages.text("call.hint", hint="").strip())
    except (KeyError, IndexError, ValueError):
        pass
    return tuple(p for p in prefixes if p)


def hint_of(feedback: str) -> str | None:
    """The first line of `feedback` that is a hint (`Hint: ...`), if any."""
    prefixes = hint_prefixes()
    return next((line.strip() for line in feedback.splitlines() if line.strip().startswith(prefixes)), None)


def _pattern(key: str) -> re.Pattern:
    """A regular expression for the catalog's sentence `key`, any fields, in English or the current language."""
    templates = {messages.ENGLISH[key]} if key in messages.ENGLISH else set()
    try:
        templates.add(messages.catalog(messages.language()).get(key) or "")
    except Exception:
        pass
    alternatives = []
    for template in filter(None, templates):
        template = template.split("\n")[0]  # feedback is matched line by line
        parts = []
        for literal, field, _, _ in string.Formatter().parse(template):
            parts.append(re.escape(literal))
            if field is not None:
                parts.append(".*?")
        alternatives.append("".join(parts))
    return re.compile("|".join(f"(?:{a})" for a in alternatives) or r"(?!)", re.DOTALL)


# --- HTML ----------------------------------------------------------------------------------------

_CSS = """
:root { color-scheme: light; --ink: #1d232a; --muted: #5b6670; --line: #d8dee4; --bar: #3b82c4; --bad: #c0392b; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); margin: 0 auto;
       max-width: 1100px; padding: 1.5rem; }
h1 { margin: 0 0 .25rem; } h2 { margin-top: 2.2rem; border-bottom: 2px solid var(--line); padding-bottom: .2rem; }
h3 { margin-top: 1.6rem; }
p.note, .muted { color: var(--muted); }
nav ul { columns: 2; padding-left: 1.2rem; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0 1rem; font-size: 14px; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f3f5f7; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { overflow-wrap: anywhere; }
code, .mono { font: 13px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; overflow-wrap: anywhere; }
td.low { color: var(--bad); font-weight: 600; }
figure { margin: .5rem 0 1rem; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { font-weight: 600; margin-top: .2rem; }
.plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(440px, 1fr)); gap: 0 1.2rem; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1.2rem; align-items: start; }
@media (max-width: 900px) { .pair { grid-template-columns: 1fr; } }
.hint { color: #1e5a8a; }
"""


def render_html(report: ClassReport) -> str:
    """One self-contained HTML page of `report`: inline CSS, plots as base64 PNG, no script, no URL."""
    title = _text("report.class_title")
    body = [f"<h1>{_escape(title)}</h1>", f"<p>{_escape(_overview(report))}</p>"]
    sections = [
        ("students", _text("report.class_students_heading"), _students_section(report)),
        ("scores", _text("report.class_scores_heading"), _scores_section(report)),
        ("checks", _text("report.class_checks_heading"), _checks_section(report)),
        ("failures", _text("report.class_failures_heading"), _failures_section(report)),
        ("not-attempted", _text("report.class_not_attempted_heading"), _not_attempted_section(report)),
        ("not-loaded", _text("report.class_not_loaded_heading"), _not_loaded_section(report)),
    ]
    others = [look for look in report.needs_a_look if look.submission not in {n.submission for n in report.not_loaded}]
    if others:
        sections.append(("look", _text("report.class_look_heading"), _look_section(others)))
    sections.append(("slowest", _text("report.class_slowest_heading"), _slowest_section(report)))
    body.append(f"<nav><h2>{_escape(_text('report.class_contents'))}</h2><ul>"
                + "".join(f'<li><a href="#{anchor}">{_escape(heading)}</a></li>' for anchor, heading, _ in sections)
                + "</ul></nav>")
    for anchor, heading, content in sections:
        body.append(f'<section id="{anchor}"><h2>{_escape(heading)}</h2>{content}</section>')
    return ("<!DOCTYPE html>\n"
            f'<html lang="{_escape(messages.language())}">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            # Nothing may be fetched or run: images are data: URIs, styles inline.
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
            "style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n"
            '<meta name="referrer" content="no-referrer">\n'
            f"<title>{_escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def _overview(report: ClassReport) -> str:
    if not report.submissions:
        return _text("report.class_nothing")
    if report.seeds:
        return _text("report.class_overview", count=report.submissions, assignments=len(report.scores),
                     seeds=", ".join(str(s) for s in report.seeds))
    return _text("report.class_overview_no_seed", count=report.submissions, assignments=len(report.scores))


def _scores_section(report: ClassReport) -> str:
    if not report.scores:
        return f"<p>{_escape(_text('report.class_nothing'))}</p>"
    header = _row([_text("report.class_col_assignment")] + [
        _text(k) for k in ("report.class_col_submissions", "report.class_col_mean", "report.class_col_median",
                           "report.class_col_min", "report.class_col_max", "report.class_col_out_of",
                           "report.class_col_full_marks")], header=True, numeric_from=1)
    rows = [_row([_assignment_name(d.assignment), str(d.count), _points(d.mean), _points(d.median),
                  _points(d.minimum), _points(d.maximum), _points(d.max_score), str(d.full_marks)], numeric_from=1)
            for d in report.scores]
    parts = [f"<p class=\"note\">{_escape(_text('report.class_scores_note'))}</p>",
             f"<table>{header}{''.join(rows)}</table>"]
    figures = []
    for distribution in report.scores:
        name = _assignment_name(distribution.assignment)
        alt = _text("report.class_histogram_alt", assignment=name, count=distribution.count, mean=distribution.mean,
                    median=distribution.median, max_score=distribution.max_score)
        figures.append(_figure(_histogram_png(distribution), alt,
                               caption=_text("report.class_assignment_heading", assignment=name)))
    parts.append(f'<div class="plots">{"".join(figures)}</div>')
    return "".join(parts)


def _checks_section(report: ClassReport) -> str:
    parts = []
    for assignment, rates in _by_assignment(report.checks):
        name = _assignment_name(assignment)
        parts.append(f"<h3>{_escape(_text('report.class_assignment_heading', assignment=name))}</h3>")
        alt = _text("report.class_pass_rates_alt", count=len(rates), assignment=name,
                    lowest=100 * min(r.rate for r in rates), highest=100 * max(r.rate for r in rates))
        figure = _figure(_pass_rates_png(rates), alt)
        header = _row([_text("report.class_col_check"), _text("report.class_col_points"),
                       _text("report.class_col_passed"), _text("report.class_col_pass_rate")], header=True,
                      numeric_from=1)
        rows = ["<tr>" + _cell(rate.check) + _cell(_points(rate.points), numeric=True)
                + _cell(_text("report.class_passed_of", passed=rate.passed, total=rate.total), numeric=True)
                + f'<td class="num{" low" if rate.rate < 0.5 else ""}">{100 * rate.rate:.0f}%</td></tr>'
                for rate in rates]
        parts.append(f'<div class="pair"><table>{header}{"".join(rows)}</table>{figure}</div>')
    return "".join(parts) or f"<p>{_escape(_text('report.class_nothing'))}</p>"


def _failures_section(report: ClassReport) -> str:
    if not report.failures:
        return f"<p>{_escape(_text('report.class_no_failures'))}</p>"
    header = _row([_text("report.class_col_count"), _text("report.class_col_assignment"),
                   _text("report.class_col_check"), _text("report.class_col_failure")], header=True)
    rows = []
    for failure in report.failures[:COMMON_FAILURES]:
        names = ", ".join(failure.submissions)
        hint = f'<div class="hint">{_escape(_clip(failure.hint, LINE_CHARS))}</div>' if failure.hint else ""
        detail = (f'<div class="mono">{_escape(_clip(failure.example, LINE_CHARS))}</div>{hint}'
                  f'<div class="muted">{_escape(_clip(_text("report.class_who", names=names), LINE_CHARS))}</div>')
        rows.append("<tr>" + _cell(str(failure.count), numeric=True) + _cell(_assignment_name(failure.assignment))
                    + _cell(failure.check) + f'<td class="text">{detail}</td></tr>')
    return (f"<p class=\"note\">{_escape(_text('report.class_failures_note'))}</p>"
            f"<table>{header}{''.join(rows)}</table>")


def _students_section(report: ClassReport) -> str:
    """Every submission: student, score, why it needs a look, and a link to its results.json (relative: the
    report sits at the top of the out dir, each submission's results in the directory named after it)."""
    if not report.students:
        return f"<p>{_escape(_text('report.class_nothing'))}</p>"
    header = _row([_text("report.class_col_student"), _text("report.class_col_assignment"),
                   _text("report.class_col_score"), _text("report.class_col_look"),
                   _text("report.class_col_feedback")], header=True)
    rows = []
    for row in report.students:
        score = _text("report.class_score_of", score=_points(row.score), max_score=_points(row.max_score))
        link = f"{urllib.parse.quote(row.submission)}/results.json"
        below = (f'<div class="muted">{_escape(row.submission)}</div>'
                 if row.student and row.student != row.submission else "")
        rows.append(f'<tr><td class="text">{_escape(row.student or row.submission)}{below}</td>'
                    + _cell(_assignment_name(row.assignment)) + _cell(score, numeric=True)
                    + f'<td class="text{" low" if row.looks else ""}">{_escape("; ".join(row.looks))}</td>'
                    + f'<td class="text"><a href="{_escape(link)}">{_escape(_text("report.class_feedback_link"))}'
                    + "</a></td></tr>")
    return (f"<p class=\"note\">{_escape(_text('report.class_students_note'))}</p>"
            f"<table>{header}{''.join(rows)}</table>")


def _not_attempted_section(report: ClassReport) -> str:
    if not report.not_attempted:
        return f"<p>{_escape(_text('report.class_none_not_attempted'))}</p>"
    header = _row([_text("report.class_col_count"), _text("report.class_col_assignment"),
                   _text("report.class_col_function"), _text("report.class_col_submission")], header=True)
    rows = ["<tr>" + _cell(str(row.count), numeric=True) + _cell(_assignment_name(row.assignment))
            + _cell(row.function, mono=True) + _cell(_clip(", ".join(row.submissions), LINE_CHARS)) + "</tr>"
            for row in report.not_attempted]
    return (f"<p class=\"note\">{_escape(_text('report.class_not_attempted_note'))}</p>"
            f"<table>{header}{''.join(rows)}</table>")


def _not_loaded_section(report: ClassReport) -> str:
    if not report.not_loaded:
        return f"<p>{_escape(_text('report.class_none_not_loaded'))}</p>"
    header = _row([_text("report.class_col_submission"),
                   _text("report.class_col_assignment"), _text("report.class_col_problem"),
                   _text("report.class_col_detail"), _text("report.class_col_path")], header=True)
    rows = ["<tr>" + _who(n.submission, n.student) + _cell(_assignment_name(n.assignment))
            + _cell(problem_reason(n.problem)) + _cell(_clip(n.detail, LINE_CHARS), mono=True)
            + _cell(n.path, mono=True) + "</tr>" for n in report.not_loaded]
    return f"<table>{header}{''.join(rows)}</table>"


def _look_section(looks: list[NeedsALook]) -> str:
    header = _row([_text("report.class_col_submission"),
                   _text("report.class_col_assignment"), _text("report.class_col_problem"),
                   _text("report.class_col_detail")], header=True)
    rows = ["<tr>" + _who(look.submission, look.student) + _cell(_assignment_name(look.assignment))
            + _cell(look.reason) + _cell(_clip(look.detail, LINE_CHARS), mono=True) + "</tr>" for look in looks]
    return f"<table>{header}{''.join(rows)}</table>"


def _slowest_section(report: ClassReport) -> str:
    if not report.slowest:
        return f"<p>{_escape(_text('report.class_no_timings'))}</p>"
    header = _row([_text("report.class_col_submission"),
                   _text("report.class_col_assignment"), _text("report.class_col_seconds"),
                   _text("report.class_col_memory")], header=True, numeric_from=2)
    rows = ["<tr>" + _who(s.submission, s.student) + _cell(_assignment_name(s.assignment))
            + _cell(f"{s.seconds:.1f}", numeric=True)
            + _cell("" if s.sandbox_peak_rss_mb is None else f"{s.sandbox_peak_rss_mb:.0f}", numeric=True) + "</tr>"
            for s in report.slowest]
    return f"<table>{header}{''.join(rows)}</table>"


def _row(cells: list[str], *, header: bool = False, numeric_from: int | None = None) -> str:
    tag = "th" if header else "td"
    out = []
    for i, cell in enumerate(cells):
        numeric = numeric_from is not None and i >= numeric_from
        css = ' class="num"' if numeric else ""
        out.append(f"<{tag}{css}>{_escape(cell)}</{tag}>")
    return "<tr>" + "".join(out) + "</tr>"


def _cell(value: str, *, numeric: bool = False, mono: bool = False) -> str:
    css = "num" if numeric else "text mono" if mono else "text"
    return f'<td class="{css}">{_escape(value)}</td>'


def _who(submission: str, student: str) -> str:
    """A cell naming a submission, and its student when the layout names them otherwise."""
    below = (f'<div class="muted">{_escape(_text("report.class_student", student=student))}</div>'
             if student and student != submission else "")
    return f'<td class="text">{_escape(submission)}{below}</td>'


def _figure(png: bytes, alt: str, *, caption: str | None = None) -> str:
    data = base64.b64encode(png).decode("ascii")
    below = f"<figcaption>{_escape(caption)}</figcaption>" if caption else ""
    return f'<figure><img src="data:image/png;base64,{data}" alt="{_escape(alt)}">{below}</figure>'


_SCHEME = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*):(?=//)")


def _escape(value: object) -> str:
    """Text made safe for HTML: escaped, control characters shown as escapes, no `scheme://` left as such."""
    text = html.escape(_visible(str(value), keep_newlines=True), quote=True)
    return _SCHEME.sub(lambda m: f"{m.group(1)}&#58;", text)


# --- Plots ---------------------------------------------------------------------------------------

def _new_figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _histogram_png(distribution: ScoreDistribution) -> bytes:
    figure = _new_figure(5.2, 2.4)
    axes = figure.add_subplot()
    top = distribution.max_score if distribution.max_score > 0 else max(distribution.maximum, 1.0)
    count = int(top) if top <= 40 and float(top).is_integer() else 20
    width = top / count
    edges = [i * width for i in range(count + 2)]  # the last bin holds full marks
    axes.hist(distribution.scores, bins=[e - width / 2 for e in edges], color="#3b82c4", edgecolor="white")
    axes.axvline(distribution.mean, color="#c0392b", linestyle="--", linewidth=1.2,
                 label=_plot_text(_text("report.class_histogram_mean", mean=distribution.mean)))
    axes.axvline(distribution.median, color="#1d232a", linestyle=":", linewidth=1.2,
                 label=_plot_text(_text("report.class_histogram_median", median=distribution.median)))
    axes.set_xlim(-width, top + width)
    axes.set_xlabel(_plot_text(_text("report.class_histogram_x", max_score=top)))
    axes.set_ylabel(_plot_text(_text("report.class_histogram_y")))
    axes.yaxis.get_major_locator().set_params(integer=True)
    axes.legend(loc="upper left", frameon=False, fontsize=8)
    axes.spines[["top", "right"]].set_visible(False)
    return _png(figure)


def _pass_rates_png(rates: list[CheckPassRate]) -> bytes:
    figure = _new_figure(5.2, 0.8 + 0.26 * len(rates))
    axes = figure.add_subplot()
    positions = list(range(len(rates)))
    values = [100 * r.rate for r in rates]
    axes.barh(positions, values, color=["#c0392b" if r.rate < 0.5 else "#3b82c4" for r in rates], height=0.7)
    axes.set_yticks(positions, [_plot_text(_clip(r.check, 56)) for r in rates], fontsize=8)
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel(_plot_text(_text("report.class_pass_rates_x")))
    for position, value in zip(positions, values, strict=True):
        inside = value > 85
        axes.text(value - 1 if inside else value + 1, position, f"{value:.0f}%", va="center", fontsize=7,
                  ha="right" if inside else "left", color="white" if inside else "#1d232a")
    axes.spines[["top", "right"]].set_visible(False)
    return _png(figure)


def _plot_text(text: str) -> str:
    """Text for matplotlib, which would read `$...$` as math."""
    return _visible(text).replace("$", r"\$")


# --- Terminal ------------------------------------------------------------------------------------

def render_terminal(report: ClassReport) -> str:
    """A few lines for the terminal: the scores of each assignment, the most common failures, who needs a look."""
    lines = [_text("report.class_terminal_title", count=report.submissions, assignments=len(report.scores),
                   filename=FILENAME)]
    for d in report.scores:
        lines.append("  " + _text("report.class_terminal_scores", assignment=_assignment_name(d.assignment),
                                  count=d.count, mean=d.mean, median=d.median, minimum=d.minimum, maximum=d.maximum,
                                  max_score=d.max_score))
    if report.failures:
        lines.append(_text("report.class_terminal_failures"))
        for rank, failure in enumerate(report.failures[:TERMINAL_FAILURES], start=1):
            lines.append(_clip(_visible("  " + _text("report.class_terminal_failure", rank=rank,
                                                     assignment=_assignment_name(failure.assignment),
                                                     check=failure.check, count=failure.count,
                                                     cause=failure.example)), TERMINAL_WIDTH))
            if failure.hint:
                lines.append(_clip(_visible("     " + failure.hint), TERMINAL_WIDTH))
    if report.not_attempted:
        items = [_text("report.class_terminal_not_attempted_item", function=row.function, count=row.count)
                 for row in report.not_attempted]
        lines.append(_clip(_text("report.class_terminal_not_attempted", functions=", ".join(items)), TERMINAL_WIDTH))
    if report.needs_a_look:
        lines.append(_text("report.class_terminal_look", count=len(report.needs_a_look)))
        for look in report.needs_a_look:
            lines.append("  " + _text("report.class_terminal_look_item", submission=look.submission,
                                      assignment=_assignment_name(look.assignment), reason=look.reason))
    elif report.submissions:
        lines.append(_text("report.class_terminal_all_fine"))
    return "\n".join(_visible(line) for line in lines)


# --- Writing -------------------------------------------------------------------------------------

def write(results: list[dict], out: OutDir) -> ClassReport:
    """Write `<out>/report.html` for `results` through OutDir (atomically, never through a link); return the report."""
    report = build(results)
    out.write_file(None, FILENAME, render_html(report).encode("utf-8"), mode=0o666)
    return report


# --- Helpers -------------------------------------------------------------------------------------

_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _visible(text: str, *, keep_newlines: bool = False) -> str:
    """Control and direction-changing characters as `\\x1b`-style escapes, so none acts on a terminal or page."""
    out = []
    for ch in text:
        if keep_newlines and ch in "\n\t":
            out.append(ch)
        elif unicodedata.category(ch) == "Cc" or ch in _BIDI or ch in "\u2028\u2029":
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _clip(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: cut after a whole word, with "…", never inside a word."""
    if len(text) <= limit:
        return text
    cut = text[:limit]  # room for the "…" comes from the space dropped before it
    words = cut[:cut.rfind(" ")] if " " in cut.lstrip() else cut[:limit - 1]
    return words.rstrip(" ,;:") + "…"


def _points(value: float) -> str:
    return f"{value:.3g}" if not float(value).is_integer() else f"{value:g}"


def _assignment_name(assignment: str | None) -> str:
    return assignment if assignment else _text("report.class_no_assignment")


def _assignment_order(assignment: str | None) -> tuple[int, str]:
    return (assignment is None, assignment or "")


def _by_assignment(rates: tuple[CheckPassRate, ...]) -> list[tuple[str | None, list[CheckPassRate]]]:
    groups: dict[str | None, list[CheckPassRate]] = {}
    for rate in rates:
        groups.setdefault(rate.assignment, []).append(rate)
    return list(groups.items())


def _string(value: object) -> str:
    return value if isinstance(value, str) else ""


def _strings(value: object) -> list[str]:
    """The strings in `value` if it is a list, else []."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _number(value: object, default: float = 0.0) -> float:
    return float(value) if _is_number(value) else float(default)
