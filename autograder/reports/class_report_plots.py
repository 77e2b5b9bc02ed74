"""The class report's plots: a histogram of an assignment's scores and a bar of each check's pass rate, as SVG.

Drawn by matplotlib on its SVG canvas, with text kept as text (the browser
sets it in its own sans-serif): no display is needed, no pyplot state is
shared between reports, and the page stays sharp at any zoom. The margins are
measured from the labels instead of by matplotlib's layout engines, which
cost more than the drawing itself (a class report draws two plots per
assignment, after the last submission is graded).
"""

from __future__ import annotations

import contextlib
import io
import warnings

from autograder.reports.class_report_text import check_label, clip, sentence, visible
from autograder.reports.class_summary import CheckPassRate, ScoreDistribution
from autograder.reports.display_width import char_width

MIME_TYPE = "image/svg+xml"
_DPI = 72  # one SVG pixel per point: the measured label widths (in points) are the figure's own units
_TICK_FONT_SIZE = 8


def histogram_svg(distribution: ScoreDistribution) -> bytes:
    """The scores of one assignment, with its mean and median marked; the last bin holds full marks."""
    figure = _new_figure(5.2, 2.4, left_points=48, bottom_points=34)
    axes = figure.add_subplot()
    top = distribution.max_score if distribution.max_score > 0 else max(distribution.maximum, 1.0)
    count = int(top) if top <= 40 and float(top).is_integer() else 20
    width = top / count
    edges = [i * width for i in range(count + 2)]  # the last bin holds full marks
    axes.hist(distribution.scores, bins=[e - width / 2 for e in edges], color="#3b82c4", edgecolor="white")
    axes.axvline(distribution.mean, color="#c0392b", linestyle="--", linewidth=1.2,
                 label=_plot_text(sentence("report.class_histogram_mean", mean=distribution.mean)))
    axes.axvline(distribution.median, color="#1d232a", linestyle=":", linewidth=1.2,
                 label=_plot_text(sentence("report.class_histogram_median", median=distribution.median)))
    axes.set_xlim(-width, top + width)
    axes.set_xlabel(_plot_text(sentence("report.class_histogram_x", max_score=top)))
    axes.set_ylabel(_plot_text(sentence("report.class_histogram_y")))
    axes.yaxis.get_major_locator().set_params(integer=True)
    axes.legend(loc="upper left", frameon=False, fontsize=_TICK_FONT_SIZE)
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure)


def pass_rates_svg(rates: list[CheckPassRate]) -> bytes:
    """One bar per check, in the order given; those under half in the colour of a failure."""
    labels = [_plot_text(clip(check_label(r.check), 56)) for r in rates]
    figure = _new_figure(5.2, 0.8 + 0.26 * len(rates), left_points=_widest(labels, _TICK_FONT_SIZE) + 10,
                         bottom_points=32)
    axes = figure.add_subplot()
    positions = list(range(len(rates)))
    values = [100 * r.rate for r in rates]
    axes.barh(positions, values, color=["#c0392b" if r.rate < 0.5 else "#3b82c4" for r in rates], height=0.7)
    axes.set_yticks(positions, labels, fontsize=_TICK_FONT_SIZE)
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel(_plot_text(sentence("report.class_pass_rates_x")))
    for position, value in zip(positions, values, strict=True):
        inside = value > 85
        axes.text(value - 1 if inside else value + 1, position, f"{value:.0f}%", va="center", fontsize=7,
                  ha="right" if inside else "left", color="white" if inside else "#1d232a")
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure)


def _new_figure(width: float, height: float, *, left_points: float, bottom_points: float):
    """A figure of `width` x `height` inches whose axes leave the given margins (in points) for labels."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=_DPI)
    FigureCanvasSVG(figure)
    width_points, height_points = width * 72, height * 72
    left = min(left_points / width_points, 0.7)  # very long check names are clipped at 56 characters anyway
    figure.subplots_adjust(left=left, right=1 - 14 / width_points, bottom=bottom_points / height_points,
                           top=1 - 8 / height_points)
    return figure


def _widest(labels: list[str], size: float) -> float:
    """The width in points of the widest label, set in matplotlib's default font at `size` points.

    That font has no Hangul (the browser sets the page's text in its own font): a wide character it
    lacks is measured as one em, about what a Korean font gives it."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    font = FontProperties(size=size)

    def width(label: str) -> float:
        narrow = "".join(char for char in label if char_width(char) < 2)
        wide = len(label) - len(narrow)
        with _no_missing_glyph_warnings():
            return text_to_path.get_text_width_height_descent(narrow, font, ismath=False)[0] + wide * size

    return max((width(label) for label in labels), default=0.0)


@contextlib.contextmanager
def _no_missing_glyph_warnings():
    """matplotlib warns for each Hangul glyph its default font lacks; the SVG keeps text as text, so the
    reader's font sets it, and the warnings would only fill an instructor's terminal."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning)
        yield


def _svg(figure) -> bytes:
    from matplotlib import rc_context

    buffer = io.BytesIO()
    # Text as text: smaller than glyph outlines, selectable, set in the reader's own font; no date, so
    # the same results give the same page.
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "autograder"}), _no_missing_glyph_warnings():
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def _plot_text(text: str) -> str:
    """Text for matplotlib, which would read `$...$` as math."""
    return visible(text).replace("$", r"\$")
