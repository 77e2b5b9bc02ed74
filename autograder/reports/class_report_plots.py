"""The class report's plots: a histogram of an assignment's scores and a bar of each check's pass rate, as PNG.

Drawn on matplotlib's Agg canvas: no display is needed, and no pyplot state
is shared between reports.
"""

from __future__ import annotations

import io

from autograder.reports.class_report_text import clip, sentence, visible
from autograder.reports.class_summary import CheckPassRate, ScoreDistribution


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


def histogram_png(distribution: ScoreDistribution) -> bytes:
    """The scores of one assignment, with its mean and median marked; the last bin holds full marks."""
    figure = _new_figure(5.2, 2.4)
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
    axes.legend(loc="upper left", frameon=False, fontsize=8)
    axes.spines[["top", "right"]].set_visible(False)
    return _png(figure)


def pass_rates_png(rates: list[CheckPassRate]) -> bytes:
    """One bar per check, in the order given; those under half in the colour of a failure."""
    figure = _new_figure(5.2, 0.8 + 0.26 * len(rates))
    axes = figure.add_subplot()
    positions = list(range(len(rates)))
    values = [100 * r.rate for r in rates]
    axes.barh(positions, values, color=["#c0392b" if r.rate < 0.5 else "#3b82c4" for r in rates], height=0.7)
    axes.set_yticks(positions, [_plot_text(clip(r.check, 56)) for r in rates], fontsize=8)
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel(_plot_text(sentence("report.class_pass_rates_x")))
    for position, value in zip(positions, values, strict=True):
        inside = value > 85
        axes.text(value - 1 if inside else value + 1, position, f"{value:.0f}%", va="center", fontsize=7,
                  ha="right" if inside else "left", color="white" if inside else "#1d232a")
    axes.spines[["top", "right"]].set_visible(False)
    return _png(figure)


def _plot_text(text: str) -> str:
    """Text for matplotlib, which would read `$...$` as math."""
    return visible(text).replace("$", r"\$")
