"""The user suite's report section: per task, its main metric on every subset with 95% intervals.

Each user task is its own ranking row (``headline_each``): tasks on different stimuli are not averaged."""
from __future__ import annotations

import numpy as np

from ...report.figures import new_figure, style_axes
from ...report.loading import Entry
from ...report.sections import register_section
from ...report.sections.base import BuildContext, ItemColumns, Section, bar_data, unique_keys

SUITE = "user"
TITLE = "Your own tasks"
#: A line the figure draws: chance for an accuracy of two-way choices.
CHANCE = {"accuracy": 0.5}


def items(entry: Entry) -> ItemColumns | None:
    """Per item, what the main score is a function of: pairs as the STS suite, probes as the probing suite,
    triplets (share of candidate pairs ordered right) and modifiers (test 1 per phrase, nouns as clusters)."""
    kind = entry.result.counts.get("kind")
    if kind == "pairs":
        from ..sts.report import items as sts_items

        return sts_items(entry)
    if kind == "probe":
        from ..probing.report import items as probing_items

        return probing_items(entry)
    preds = entry.predictions()
    if preds is None:
        return None
    if kind == "triplets" and {"anchor", "correct"} <= set(preds.columns):
        main = entry.result.task.main_subset
        part = preds if main == "all" or "category" not in preds.columns else preds[preds["category"] == main]
        keys = unique_keys(part, [c for c in part.columns if c == "anchor" or c.startswith("candidate_")])
        return ItemColumns(kind="mean", keys=keys, values=part["correct"].to_numpy(dtype=float),
                           note="share of candidate pairs in the expected order, per item")
    if kind == "modifiers" and {"test", "holds", "noun", "phrase"} <= set(preds.columns):
        part = preds[preds["test"] == "test1"]
        return ItemColumns(kind="mean", keys=unique_keys(part, ["phrase"]), values=part["holds"].to_numpy(dtype=float),
                           clusters=part["noun"].astype(str).to_numpy(), weighting="macro",
                           note="test 1 per phrase; nouns resampled and swapped as clusters")
    return None


def fill(ctx: BuildContext, section: Section, entries: list[Entry]) -> None:
    tasks, models = ctx.index.layout(entries, [])
    colours = ctx.colours
    for t in tasks:
        firsts = ctx.index.firsts(t)
        first = firsts[0]
        metric = first.result.task.main_metric
        subsets = list(dict.fromkeys(s.subset for e in firsts for s in e.result.scores
                                     if s.metric == metric and "/" not in s.subset))
        mine = [m for m in models if any(e.model == m for e in firsts)]
        fig = new_figure(max(5.5, 0.5 * len(subsets) * max(1, len(mine)) + 2.5), 3.4)
        ax = fig.subplots()
        x = np.arange(len(subsets))
        w = 0.8 / max(1, len(mine))
        for k, m in enumerate(mine):
            e = next(e for e in firsts if e.model == m)
            vals, yerr = bar_data([e.score(metric, sub) for sub in subsets])
            ax.bar(x + (k - (len(mine) - 1) / 2) * w, vals, w, yerr=yerr, capsize=2,
                   color=colours.get(m), label=m, error_kw={"linewidth": 0.8})
        if metric in CHANCE:
            ax.axhline(CHANCE[metric], color="black", linewidth=0.7, linestyle="--")
            ax.set_ylim(0, 1.05)
        ax.axhline(0, color="black", linewidth=0.5)
        ax.set_xticks(x, subsets, rotation=20 if len(subsets) > 4 else 0, ha="right" if len(subsets) > 4 else "center")
        ax.set_ylabel(metric)
        counts = first.result.counts
        ax.set_title(f"{t} ({counts.get('kind', 'user')}, n = {first.result.n_items})")
        style_axes(ax)
        ax.legend(frameon=False, fontsize=8, ncols=min(4, len(mine)))
        caption = " ".join(x for x in (
            counts.get("description") or "", f"Source: {counts.get('source', '?')}.",
            f"Citation: {counts['citation']}." if counts.get("citation") else "",
            "Dashed line: chance (0.5)." if metric in CHANCE else "") if x)
        section.figures.append(ctx.sink.render(fig, f"fig-user-{t}", f"{t}: {metric} per subset", caption))


register_section(SUITE, title=TITLE, order=90, fill=fill, items=items, headline_each=True, intro=(
    "Tasks declared on your own data (a file or a Hugging Face dataset; docs/user-tasks.md), each scored by "
    "the method compeval has for its shape: pairs by Spearman with the gold scores, triplets by the share "
    "of items the model orders as expected, labelled sentences by a probing classifier, adjective-noun lists "
    "by the modifier tests. Bars: the task's main metric per subset with 95% bootstrap intervals."))
