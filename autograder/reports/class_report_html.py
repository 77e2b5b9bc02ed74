"""The class report as one self-contained HTML page: `report.html` in the out dir.

Inline CSS, plots embedded as base64 PNG, no script, no URL of anything to
fetch (its content security policy forbids both, so a browser loads nothing
else even if asked). Submission names, students, paths and feedback come
from students' files and code: every one is HTML-escaped, with control
characters shown as escapes, and a `scheme://` in it is written so that the
file holds no URL; the browser still shows the same text.
"""

from __future__ import annotations

import base64
import collections
import html
import re
import urllib.parse

from autograder.catalog import messages
from autograder.reports.class_report_plots import MIME_TYPE, histogram_svg, pass_rates_svg
from autograder.reports.class_report_text import assignment_name, check_label, clip, sentence, visible
from autograder.reports.class_summary import CheckPassRate, ClassReport, NeedsALook, problem_reason

FILENAME = "report.html"
COMMON_FAILURES = 15
LINE_CHARS = 400  # of one line of feedback

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
p.banner { border: 2px solid var(--bad); background: #fdf0ee; padding: .6rem .8rem; font-weight: 600; }
"""


def render_html(report: ClassReport) -> str:
    """One self-contained HTML page of `report`: inline CSS, plots as base64 PNG, no script, no URL."""
    title = sentence("report.class_title")
    body = [f"<h1>{_escape(title)}</h1>", f"<p>{_escape(_overview(report))}</p>"]
    if report.not_graded:  # before anything else: the scores below count their placeholder 0s
        body.append(f'<p class="banner" role="alert">{_escape(_not_graded_banner(report))}</p>')
    sections = [
        ("students", sentence("report.class_students_heading"), _students_section(report)),
        ("scores", sentence("report.class_scores_heading"), _scores_section(report)),
        ("checks", sentence("report.class_checks_heading"), _checks_section(report)),
        ("failures", sentence("report.class_failures_heading"), _failures_section(report)),
        ("not-attempted", sentence("report.class_not_attempted_heading"), _not_attempted_section(report)),
        ("not-loaded", sentence("report.class_not_loaded_heading"), _not_loaded_section(report)),
    ]
    others = [look for look in report.needs_a_look if look.submission not in {n.submission for n in report.not_loaded}]
    if others:
        sections.append(("look", sentence("report.class_look_heading"), _look_section(others)))
    sections.append(("slowest", sentence("report.class_slowest_heading"), _slowest_section(report)))
    body.append(f"<nav><h2>{_escape(sentence('report.class_contents'))}</h2><ul>"
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


def _not_graded_banner(report: ClassReport) -> str:
    counts = collections.Counter(report.not_graded)
    reasons = ", ".join(f"{count} {reason}" for reason, count in counts.most_common())
    return messages.text("batch.not_graded_banner", count=len(report.not_graded), total=report.submissions,
                         reasons=reasons)


def _overview(report: ClassReport) -> str:
    if not report.submissions:
        return sentence("report.class_nothing")
    if report.seeds:
        return sentence("report.class_overview", count=report.submissions, assignments=len(report.scores),
                     seeds=", ".join(str(s) for s in report.seeds))
    return sentence("report.class_overview_no_seed", count=report.submissions, assignments=len(report.scores))


def _scores_section(report: ClassReport) -> str:
    if not report.scores:
        return f"<p>{_escape(sentence('report.class_nothing'))}</p>"
    header = _row([sentence("report.class_col_assignment")] + [
        sentence(k) for k in ("report.class_col_submissions", "report.class_col_mean", "report.class_col_median",
                           "report.class_col_min", "report.class_col_max", "report.class_col_out_of",
                           "report.class_col_full_marks")], header=True, numeric_from=1)
    rows = [_row([assignment_name(d.assignment), str(d.count), _points(d.mean), _points(d.median),
                  _points(d.minimum), _points(d.maximum), _points(d.max_score), str(d.full_marks)], numeric_from=1)
            for d in report.scores]
    parts = [f"<p class=\"note\">{_escape(sentence('report.class_scores_note'))}</p>",
             f"<table>{header}{''.join(rows)}</table>"]
    figures = []
    for distribution in report.scores:
        name = assignment_name(distribution.assignment)
        alt = sentence("report.class_histogram_alt", assignment=name, count=distribution.count, mean=distribution.mean,
                    median=distribution.median, max_score=distribution.max_score)
        figures.append(_figure(histogram_svg(distribution), alt,
                               caption=sentence("report.class_assignment_heading", assignment=name)))
    parts.append(f'<div class="plots">{"".join(figures)}</div>')
    return "".join(parts)


def _checks_section(report: ClassReport) -> str:
    parts = []
    for assignment, rates in _by_assignment(report.checks):
        name = assignment_name(assignment)
        parts.append(f"<h3>{_escape(sentence('report.class_assignment_heading', assignment=name))}</h3>")
        alt = sentence("report.class_pass_rates_alt", count=len(rates), assignment=name,
                    lowest=100 * min(r.rate for r in rates), highest=100 * max(r.rate for r in rates))
        figure = _figure(pass_rates_svg(rates), alt)
        header = _row([sentence("report.class_col_check"), sentence("report.class_col_points"),
                       sentence("report.class_col_passed"), sentence("report.class_col_pass_rate")], header=True,
                      numeric_from=1)
        rows = ["<tr>" + _cell(check_label(rate.check)) + _cell(_points(rate.points), numeric=True)
                + _cell(sentence("report.class_passed_of", passed=rate.passed, total=rate.total), numeric=True)
                + f'<td class="num{" low" if rate.rate < 0.5 else ""}">{100 * rate.rate:.0f}%</td></tr>'
                for rate in rates]
        parts.append(f'<div class="pair"><table>{header}{"".join(rows)}</table>{figure}</div>')
    return "".join(parts) or f"<p>{_escape(sentence('report.class_nothing'))}</p>"


def _failures_section(report: ClassReport) -> str:
    if not report.failures:
        return f"<p>{_escape(sentence('report.class_no_failures'))}</p>"
    header = _row([sentence("report.class_col_count"), sentence("report.class_col_assignment"),
                   sentence("report.class_col_check"), sentence("report.class_col_failure")], header=True)
    rows = []
    for failure in report.failures[:COMMON_FAILURES]:
        names = ", ".join(failure.submissions)
        hint = f'<div class="hint">{_escape(clip(failure.hint, LINE_CHARS))}</div>' if failure.hint else ""
        detail = (f'<div class="mono">{_escape(clip(failure.example, LINE_CHARS))}</div>{hint}'
                  f'<div class="muted">{_escape(clip(sentence("report.class_who", names=names), LINE_CHARS))}</div>')
        rows.append("<tr>" + _cell(str(failure.count), numeric=True) + _cell(assignment_name(failure.assignment))
                    + _cell(check_label(failure.check)) + f'<td class="text">{detail}</td></tr>')
    return (f"<p class=\"note\">{_escape(sentence('report.class_failures_note'))}</p>"
            f"<table>{header}{''.join(rows)}</table>")


def _students_section(report: ClassReport) -> str:
    """Every submission: student, score, why it needs a look, and a link to its results.json (relative: the
    report sits at the top of the out dir, each submission's results in the directory named after it)."""
    if not report.students:
        return f"<p>{_escape(sentence('report.class_nothing'))}</p>"
    header = _row([sentence("report.class_col_student"), sentence("report.class_col_assignment"),
                   sentence("report.class_col_score"), sentence("report.class_col_look"),
                   sentence("report.class_col_feedback")], header=True)
    rows = []
    for row in report.students:
        score = sentence("report.class_score_of", score=_points(row.score), max_score=_points(row.max_score))
        link = f"{urllib.parse.quote(row.submission)}/results.json"
        below = (f'<div class="muted">{_escape(row.submission)}</div>'
                 if row.student and row.student != row.submission else "")
        rows.append(f'<tr><td class="text">{_escape(row.student or row.submission)}{below}</td>'
                    + _cell(assignment_name(row.assignment)) + _cell(score, numeric=True)
                    + f'<td class="text{" low" if row.looks else ""}">{_escape("; ".join(row.looks))}</td>'
                    + f'<td class="text"><a href="{_escape(link)}">{_escape(sentence("report.class_feedback_link"))}'
                    + "</a></td></tr>")
    return (f"<p class=\"note\">{_escape(sentence('report.class_students_note'))}</p>"
            f"<table>{header}{''.join(rows)}</table>")


def _not_attempted_section(report: ClassReport) -> str:
    if not report.not_attempted:
        return f"<p>{_escape(sentence('report.class_none_not_attempted'))}</p>"
    header = _row([sentence("report.class_col_count"), sentence("report.class_col_assignment"),
                   sentence("report.class_col_function"), sentence("report.class_col_submission")], header=True)
    rows = ["<tr>" + _cell(str(row.count), numeric=True) + _cell(assignment_name(row.assignment))
            + _cell(row.function, mono=True) + _cell(clip(", ".join(row.submissions), LINE_CHARS)) + "</tr>"
            for row in report.not_attempted]
    return (f"<p class=\"note\">{_escape(sentence('report.class_not_attempted_note'))}</p>"
            f"<table>{header}{''.join(rows)}</table>")


def _not_loaded_section(report: ClassReport) -> str:
    if not report.not_loaded:
        return f"<p>{_escape(sentence('report.class_none_not_loaded'))}</p>"
    header = _row([sentence("report.class_col_submission"),
                   sentence("report.class_col_assignment"), sentence("report.class_col_problem"),
                   sentence("report.class_col_detail"), sentence("report.class_col_path")], header=True)
    rows = ["<tr>" + _who(n.submission, n.student) + _cell(assignment_name(n.assignment))
            + _cell(problem_reason(n.problem)) + _cell(clip(n.detail, LINE_CHARS), mono=True)
            + _cell(n.path, mono=True) + "</tr>" for n in report.not_loaded]
    return f"<table>{header}{''.join(rows)}</table>"


def _look_section(looks: list[NeedsALook]) -> str:
    header = _row([sentence("report.class_col_submission"),
                   sentence("report.class_col_assignment"), sentence("report.class_col_problem"),
                   sentence("report.class_col_detail")], header=True)
    rows = ["<tr>" + _who(look.submission, look.student) + _cell(assignment_name(look.assignment))
            + _cell(look.reason) + _cell(clip(look.detail, LINE_CHARS), mono=True) + "</tr>" for look in looks]
    return f"<table>{header}{''.join(rows)}</table>"


def _slowest_section(report: ClassReport) -> str:
    if not report.slowest:
        return f"<p>{_escape(sentence('report.class_no_timings'))}</p>"
    header = _row([sentence("report.class_col_submission"),
                   sentence("report.class_col_assignment"), sentence("report.class_col_seconds"),
                   sentence("report.class_col_memory")], header=True, numeric_from=2)
    rows = ["<tr>" + _who(s.submission, s.student) + _cell(assignment_name(s.assignment))
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
    below = (f'<div class="muted">{_escape(sentence("report.class_student", student=student))}</div>'
             if student and student != submission else "")
    return f'<td class="text">{_escape(submission)}{below}</td>'


def _figure(image: bytes, alt: str, *, caption: str | None = None) -> str:
    data = base64.b64encode(image).decode("ascii")
    below = f"<figcaption>{_escape(caption)}</figcaption>" if caption else ""
    return f'<figure><img src="data:{MIME_TYPE};base64,{data}" alt="{_escape(alt)}">{below}</figure>'


_SCHEME = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*):(?=//)")


def _escape(value: object) -> str:
    """Text made safe for HTML: escaped, control characters shown as escapes, no `scheme://` left as such."""
    text = html.escape(visible(str(value), keep_newlines=True), quote=True)
    return _SCHEME.sub(lambda m: f"{m.group(1)}&#58;", text)


def _points(value: float) -> str:
    return f"{value:.3g}" if not float(value).is_integer() else f"{value:g}"


def _by_assignment(rates: tuple[CheckPassRate, ...]) -> list[tuple[str | None, list[CheckPassRate]]]:
    groups: dict[str | None, list[CheckPassRate]] = {}
    for rate in rates:
        groups.setdefault(rate.assignment, []).append(rate)
    return list(groups.items())
