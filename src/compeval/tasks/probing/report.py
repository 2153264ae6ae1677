"""Probing suite: classifier accuracies beside their controls (Ettinger et al. 2016, 2018)."""
from __future__ import annotations

import numpy as np

from ...report.figures import new_figure, style_axes
from ...report.loading import Entry
from ...report.sections import register_section
from ...report.sections.base import BuildContext, ItemColumns, Section, error_bars, unique_keys

SUITE = "probing"
TITLE = "Probing classifiers"
TASK_ORDER = ["probe-has-x", "probe-has-human", "probe-x-as-agent", "probe-agent-of-verb", "probe-negation-scope",
              "ettinger2018-cont1", "ettinger2018-cont2", "ettinger2018-order", "ettinger2018-sr", "ettinger2018-neg"]
BARS = [("logreg", "logistic regression", "#0072B2", ""), ("mlp", "MLP", "#E69F00", ""),
        ("control-gaussian", "control: random Gaussian sentence", "#BBBBBB", "///"),
        ("control-random-probe", "control: random probe one-hot", "#777777", "\\\\\\")]


def items(entry: Entry) -> ItemColumns | None:
    """Per test item: did the main classifier get it right; minimal pairs (units) move together."""
    preds = entry.predictions()
    clf = entry.result.task.main_subset
    column = f"pred_{clf}"
    if preds is None or not {column, "label", "choice", "unit"} <= set(preds.columns):
        return None
    correct = (preds[column].astype(bool) == preds["label"].astype(bool)).to_numpy(dtype=float)
    units = (preds["choice"].astype(str) + "/" + preds["unit"].astype(str)).to_numpy()
    key_cols = [c for c in ("choice", "text", "probes") if c in preds.columns]
    return ItemColumns(kind="mean", keys=unique_keys(preds, key_cols), values=correct, clusters=units,
                       note=f"{clf} correct per test item; units (minimal pairs) resampled and swapped together")


def build(ctx: BuildContext) -> Section | None:
    entries = ctx.index.suite(SUITE)
    if not entries:
        return None
    section = Section(id="suite-probing", suite=SUITE, title=TITLE, intro=(
        "Can a simple classifier read a semantic fact off the sentence vector? Each task's accuracy is shown beside "
        "two controls that should not succeed: a random Gaussian vector in place of the sentence, and (2018 tasks) "
        "a random probe one-hot. Accuracy near the controls means the fact is not recoverable; sanity tasks "
        "(has-X) should be near 100%. Chance is 50% (balanced labels)."))
    tasks, models = ctx.index.layout(entries, TASK_ORDER)
    fig = new_figure(max(8.0, 0.95 * len(tasks) + 3), 3.1 * len(models) + 0.6)
    axes = np.atleast_1d(fig.subplots(len(models), 1, squeeze=False)[:, 0])
    x = np.arange(len(tasks))
    legend: dict[str, object] = {}
    for ax, m in zip(axes, models):
        series = []
        for subset, label, colour, hatch in BARS:  # only the classifiers and controls this model has
            trips = []
            for t in tasks:
                e = ctx.index.first(m, t)
                s = None if e is None else e.score("accuracy", subset)
                trips.append((None, None, None) if s is None or s.value is None else (s.value, s.ci_low, s.ci_high))
            if any(v is not None for v, _, _ in trips):
                series.append((trips, label, colour, hatch))
        w = 0.8 / max(1, len(series))
        for k, (trips, label, colour, hatch) in enumerate(series):
            vals = [np.nan if v is None else v for v, _, _ in trips]
            bars = ax.bar(x + (k - (len(series) - 1) / 2) * w, vals, w, yerr=error_bars(*zip(*trips)), capsize=1.5,
                          color=colour, hatch=hatch, edgecolor="white" if not hatch else "#444444", linewidth=0.3,
                          label=label, error_kw={"linewidth": 0.7})
            legend.setdefault(label, bars)
        ax.axhline(0.5, color="black", linewidth=0.7, linestyle="--")
        ax.set_ylim(0, 1.05)
        ax.set_xticks(x, [t.replace("ettinger2018-", "2018-").replace("probe-", "") for t in tasks], rotation=20,
                      ha="right")
        ax.set_ylabel("test accuracy")
        ax.set_title(m)
        style_axes(ax)
    fig.legend(list(legend.values()), list(legend), loc="outside upper center", frameon=False, ncols=4)
    section.figures.append(ctx.sink.render(
        fig, "fig-probing-controls", "Probing accuracies beside their controls",
        "Test accuracy with 95% bootstrap intervals over independent units (minimal pairs or items); dashed line: "
        "chance. Published (Ettinger et al. 2016, GloVe average): has-school 100, has-human 99.9, school-as-agent 47.98."))
    return section


register_section(SUITE, title=TITLE, order=40, build=build, items=items, task_order=TASK_ORDER)
