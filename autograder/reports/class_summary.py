"""The class report's data: typed rows computed from a batch's results.json contents (`build`).

Per assignment, the distribution of scores and the pass rate of every check;
the most common failures, each with the hint its feedback gives; the
functions left as the released stub; the submissions that failed to load or
need a look for another reason; the slowest submissions; and one row per
submission. Results are read defensively (`result_json`): a field of the
wrong type counts as missing. Rendering is elsewhere (class_report_html,
class_report_terminal).
"""

from __future__ import annotations

import collections
import dataclasses
import math
import statistics
from typing import TypeGuard

from autograder.reports import grade_status
from autograder.reports.class_report_text import REPORT_TEXT, sentence
from autograder.reports.feedback_patterns import hint_of, normalize_feedback, sentence_pattern
from autograder.reports.result_json import check_id, mapping, mappings, test_status

SLOWEST = 10

# Problems (results.json's extra_data.problem) that mean the notebook was not loaded, so no check saw its code.
LOAD_PROBLEMS = ("unreadable", "timeout", "exited", "sandbox_failed", "child_failed", "grader_error", "no_notebook")


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
    # Why each submission that was not graded was not (grade_status: interrupted, ...): their 0s are placeholders.
    not_graded: tuple[str, ...] = ()


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
        not_graded=tuple(status.reason for status in map(grade_status.from_problem, results)
                         if status is not None and status.status == grade_status.NOT_GRADED),
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
            check = check_id(test)
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
    """The failed checks grouped by cause; a function left as a stub (`stubs`) is no failure of its own,
    nor is a check not checked because the values were wrong (its values check is the failure)."""
    stubs = stubs or set()
    groups: dict[tuple[str | None, str, str], dict] = {}
    for entry in entries:
        for test in entry.tests:
            if test_status(test) != "failed" or (entry.index, _function(test)) in stubs:
                continue
            check = check_id(test)
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
    return check_id(test).split(":")[0].strip()


def _stubs(entries: list[_Entry]) -> set[tuple[int, str]]:
    """(entry index, function) of every function a submission did not attempt: its feedback says it is a stub."""
    patterns = [sentence_pattern("call.not_implemented"), sentence_pattern("call.missing_not_implemented")]
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
    tampered = [sentence_pattern("load.tampered"), sentence_pattern("call.tampered")]
    internal = sentence_pattern("report.internal_error")
    for entry in entries:
        # Who handed it in (submission_identity's notes, recorded by the batch), whether it loaded or not.
        identity = _strings(entry.extra.get("identity_notes"))
        if identity:
            look.append(NeedsALook(entry.submission, entry.student, entry.assignment,
                                   sentence("report.class_look_identity"), identity[0]))
        look.extend(_file_choice_looks(entry))
        if entry.problem is not None:
            continue
        if entry.mismatch:
            look.append(NeedsALook(entry.submission, entry.student, entry.assignment,
                                   sentence("report.class_look_mismatch"), entry.mismatch))
        texts = entry.notes + [_string(t.get("output")) for t in entry.tests if t.get("status") != "passed"]
        for reason, patterns in (("report.class_look_tampered", tampered), ("report.class_look_internal_error",
                                                                             [internal])):
            found = next((line for text in texts for line in text.splitlines()
                          if any(p.search(line) for p in patterns)), None)
            if found is not None:
                look.append(NeedsALook(entry.submission, entry.student, entry.assignment, sentence(reason), found))
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
                       sentence("report.class_look_ignored", files=listed), listed)]


def problem_reason(problem: str) -> str:
    """What a load problem means, in a few words."""
    key = f"report.class_problem_{problem}"
    return sentence(key) if key in REPORT_TEXT else sentence("report.class_problem_other", problem=problem)


def _assignment_order(assignment: str | None) -> tuple[int, str]:
    return (assignment is None, assignment or "")


def _string(value: object) -> str:
    return value if isinstance(value, str) else ""


def _strings(value: object) -> list[str]:
    """The strings in `value` if it is a list, else []."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _number(value: object, default: float = 0.0) -> float:
    return float(value) if _is_number(value) else float(default)
