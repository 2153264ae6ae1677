"""Probing suite: classifier accuracies beside their controls (Ettinger et al. 2016, 2018)."""
from __future__ import annotations

import numpy as np

from ...report.figures import new_figure, style_axes
from ...report.loading import Entry
from ...report.sections import register_section
from ...report.sections.base import BuildContext, Cell, ItemColumns, Section, Table, bar_data, fmt, unique_keys

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


def fill(ctx: BuildContext, section: Section, entries: list[Entry]) -> None:
    tasks, models = ctx.index.layout(entries, TASK_ORDER)
    fig = new_figure(max(8.0, 0.95 * len(tasks) + 3), 3.1 * len(models) + 0.6)
    axes = np.atleast_1d(fig.subplots(len(models), 1, squeeze=False)[:, 0])
    x = np.arange(len(tasks))
    legend: dict[str, object] = {}
    for ax, m in zip(axes, models):
        series = []
        for subset, label, colour, hatch in BARS:  # only the classifiers and controls this model has
            scores = [None if (e := ctx.index.first(m, t)) is None else e.score("accuracy", subset) for t in tasks]
            if any(s is not None and s.value is not None for s in scores):
                series.append((scores, label, colour, hatch))
        w = 0.8 / max(1, len(series))
        for k, (scores, label, colour, hatch) in enumerate(series):
            vals, yerr = bar_data(scores)
            bars = ax.bar(x + (k - (len(series) - 1) / 2) * w, vals, w, yerr=yerr, capsize=1.5,
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
    table = _published_table(ctx)
    if table is not None:
        section.tables.append(table)


#: The 2016 paper's three results (has-school, has-human, school-as-agent): task and the options that match it.
PAPER_2016 = (("probe-has-x", "has-school", {"words": "school"}),
              ("probe-has-human", "has-human", {}),
              ("probe-x-as-agent", "school-as-agent", {"preset": "school-as-agent"}))


def _matching(ctx: BuildContext, model: str, task: str, wanted: dict) -> Entry | None:
    """The model's result of ``task`` run with the paper's options, else its default result."""
    found = [e for e in ctx.index.by_name(task) if e.model == model]
    exact = [e for e in found if all(e.result.task.params.get(k) == v for k, v in wanted.items())]
    return exact[0] if exact else ctx.index.first(model, task)


def _published_table(ctx: BuildContext) -> Table | None:
    """Ettinger et al. (2016) beside each model's logistic-regression accuracy, with the paper's options."""
    published = {t: ctx.index.published(t, "logreg", "accuracy") for t, _, _ in PAPER_2016}
    computed = [m for m in ctx.index.models if any(ctx.index.first(m, t) for t, _, _ in PAPER_2016)]
    if not any(published.values()) or not computed:
        return None
    rows = []
    for m in dict.fromkeys(p.model for ps in published.values() for p in ps):
        vals = [next((p for p in published[t] if p.model == m), None) for t, _, _ in PAPER_2016]
        cite = next(v.citation for v in vals if v)
        rows.append([Cell(f"{m} (published)", cls="published", title=cite)]
                    + [Cell(fmt(v.value * 100, 2) if v else "–", cls="published", title=cite) for v in vals])
    for m in computed:
        row = [Cell(m)]
        for task, _, wanted in PAPER_2016:
            e = _matching(ctx, m, task, wanted)
            s = None if e is None else e.score("accuracy", "logreg")
            paper = e is not None and all(e.result.task.params.get(k) == v for k, v in wanted.items())
            row.append(Cell("–" if s is None or s.value is None else fmt(s.value * 100, 2) + ("" if paper else " *"),
                            title=e.provenance() if e is not None else ""))
        rows.append(row)
    return Table(id="table-probing-2016", caption="Ettinger, Elgohary & Resnik (2016) beside compeval (accuracy, %)",
                 columns=["model"] + [label for _, label, _ in PAPER_2016], rows=rows,
                 note="Published rows are the paper's (logistic regression, 1,000 train / 500 test), not computed here. "
                      "compeval rows: the logistic-regression accuracy of the result run with the paper's setting "
                      "(probe-has-x,words=school; probe-x-as-agent,preset=school-as-agent); * marks a result with other "
                      "options (e.g. the default grammar or pooled probe words), not the paper's setting.")


#: Every probe is a balanced two-way choice: a model with no signal scores 0.5 accuracy.
register_section(SUITE, title=TITLE, order=40, fill=fill, items=items, task_order=TASK_ORDER, chance={"accuracy": 0.5},
                 intro=(
    "Can a simple classifier read a semantic fact off the sentence vector? Each task's accuracy is shown beside "
    "two controls that should not succeed: a random Gaussian vector in place of the sentence, and (2018 tasks) "
    "a random probe one-hot. Accuracy near the controls means the fact is not recoverable; sanity tasks "
    "(has-X) should be near 100%. Chance is 50% (balanced labels)."))
