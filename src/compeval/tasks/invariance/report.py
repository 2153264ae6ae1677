"""Invariance suite: relation-classification AUC and restricted-QA rank by construction and by negative
type (Cheung & Penn 2012, on compeval's generated sets)."""
from __future__ import annotations

import numpy as np

from ...report.figures import new_figure, style_axes
from ...report.loading import Entry
from ...report.sections import register_section
from ...report.sections.base import BuildContext, ItemColumns, Section, bar_data, unique_keys

SUITE = "invariance"
TITLE = "Syntactically invariant inference"
TASK_ORDER = ["invariance-relation", "invariance-qa"]


def items(entry: Entry) -> ItemColumns | None:
    """relation: per pair score and H/L label, AUC per entity pair then averaged; qa: per-question rank."""
    preds = entry.predictions()
    if preds is None:
        return None
    if entry.task_name == "invariance-relation" and {"group", "kind", "score"} <= set(preds.columns):
        return ItemColumns(kind="auc", keys=unique_keys(preds, ["group", "kind", "text_a", "text_b"]),
                           values=preds["score"].to_numpy(dtype=float),
                           labels=(preds["kind"] == "H").to_numpy(), clusters=preds["group"].astype(str).to_numpy(),
                           note="AUC per entity pair, averaged; entity pairs resampled and swapped as units")
    if entry.task_name == "invariance-qa" and {"qid", "normalised_rank"} <= set(preds.columns) \
            and entry.result.task.main_subset == "all":
        return ItemColumns(kind="mean", keys=unique_keys(preds, ["qid"]),
                           values=preds["normalised_rank"].to_numpy(dtype=float), note="normalised rank per question")
    return None


def fill(ctx: BuildContext, section: Section, entries: list[Entry]) -> None:
    rel = ctx.index.firsts("invariance-relation")
    if rel:
        section.figures.append(_by_subset(ctx, rel, "auc", ("construction=", "negative="), "fig-invariance-relation",
                                          "Relation classification AUC by construction and negative type",
                                          "ROC AUC averaged over entity pairs, 95% bootstrap intervals over entity pairs. "
                                          "Left: positives restricted to one construction of the second sentence; right: "
                                          "negatives restricted to one type. Dashed line: chance.", 0.5))
    qa = ctx.index.firsts("invariance-qa")
    if qa:
        section.figures.append(_by_subset(ctx, qa, "normalised_rank", ("answer=", "negative="), "fig-invariance-qa",
                                          "Restricted QA normalised rank by answer construction and distractor type",
                                          "Mean normalised rank of the answer (1 = first), 95% bootstrap intervals over "
                                          "questions. Right: the answer ranked among one distractor type only.", 0.5))


def _by_subset(ctx: BuildContext, entries: list[Entry], metric: str, prefixes: tuple[str, str], fig_id: str,
               title: str, caption: str, chance: float):
    fig = new_figure(11, 3.8)
    axes = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.4, 1]})
    for ax, prefix in zip(axes, prefixes):
        subsets = sorted({s.subset for e in entries for s in e.result.scores
                          if s.metric == metric and s.subset.startswith(prefix)})
        if prefix == prefixes[0]:
            subsets = ["all"] + subsets
        if not subsets:  # a user's file (path=) without these tags: nothing to draw on this side
            ax.set_axis_off()
            ax.text(0.5, 0.5, "no items carry these tags", ha="center", va="center", transform=ax.transAxes)
            continue
        x = np.arange(len(subsets))
        w = 0.8 / len(entries)
        for k, e in enumerate(entries):
            vals, yerr = bar_data([e.score(metric, sub) for sub in subsets])
            ax.bar(x + (k - (len(entries) - 1) / 2) * w, vals, w, yerr=yerr, capsize=2,
                   color=ctx.colours[e.model], label=e.model, error_kw={"linewidth": 0.8})
        ax.axhline(chance, color="black", linewidth=0.7, linestyle="--")
        ax.set_ylim(0, 1.05)
        ax.set_xticks(x, [s.split("=", 1)[-1].replace("_", " ") for s in subsets], rotation=25, ha="right")
        ax.set_title(("by construction of the positive" if prefix in ("construction=", "answer=")
                      else "by type of negative"))
        style_axes(ax)
    axes[0].set_ylabel(metric.replace("_", " "))
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside upper center", frameon=False,
               ncols=min(4, len(entries)))
    return ctx.sink.render(fig, fig_id, title, caption)


register_section(SUITE, title=TITLE, order=60, fill=fill, items=items, task_order=TASK_ORDER, intro=(
    "Does a model give the same relation the same score whatever construction carries it? Relation "
    "classification: ROC AUC of same-relation sentence pairs against hard negatives with the same entities "
    "(0.5 = chance), per construction of the positive and per type of negative. Restricted QA: normalised rank "
    "of the answer sentence among distractors (1 = ranked first)."))
