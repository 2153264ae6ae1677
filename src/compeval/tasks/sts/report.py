"""STS suite: STS3k non vs adversarial bars and their gap, model-vs-human scatter on adversarial
pairs coloured by pair type, and every STS set side by side (Fodor et al. 2024)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...report.figures import PUBLISHED_COLOUR, new_figure, style_axes
from ...report.loading import Entry
from ...report.sections import Headline, register_section
from ...report.sections.base import BuildContext, ItemColumns, Section, bar_data, error_bars, unique_keys
from .tasks import apply_missing

SUITE = "sts"
TITLE = "Sentence similarity (STS)"
TASK_ORDER = ["sts3k", "stsb", "sick", "stss131", "gs2011", "ks2013", "sts3k-pilot"]
#: Published models shown beside ours in the non/adv figure (a spread from bag of words to role models).
REFERENCE_MODELS = ["Mean-CN", "USE", "SentBERT (all-mpnet-base-v2)", "DefSent", "OpenAI ada-002", "AMR-CN", "VerbNet-CN"]
ADV_TYPES = {"added_modifiers": "added modifiers", "double_swap": "double swap", "triple_swap": "triple swap",
             "quadruple_swap": "quadruple swap", "paraphrase": "paraphrase", "negative": "negative"}
#: Conditions in greys: the palette's colours stand for models, in every figure of the report.
NON_COLOUR, ADV_COLOUR = "#b8b8b8", "#4d4d4d"
TYPE_COLOURS = {"added_modifiers": "#009E73", "double_swap": "#E69F00", "triple_swap": "#CC79A7",
                "quadruple_swap": "#D55E00", "paraphrase": "#0072B2", "negative": "#56B4E9", "other": "#999999"}


def items(entry: Entry) -> ItemColumns | None:
    """Spearman over pairs: the model's similarity against the human rating, per pair."""
    preds = entry.predictions()
    if preds is None or not {"item", "score", "gold"} <= set(preds.columns):
        return None
    subset = entry.result.task.main_subset
    if subset != "all":
        if "subsets" not in preds.columns:
            return None
        preds = preds[preds["subsets"].fillna("").str.split(",").apply(lambda s: subset in s)]
    score = apply_missing(preds["score"].to_numpy(dtype=float), entry.result.task.params.get("missing", "zero"))
    return ItemColumns(kind="spearman", keys=unique_keys(preds, ["item"]), values=score,
                       reference=preds["gold"].to_numpy(dtype=float))


def fill(ctx: BuildContext, section: Section, entries: list[Entry]) -> None:
    sts3k = ctx.index.firsts("sts3k")
    if sts3k:
        section.figures.append(_gap_figure(ctx, sts3k))
        scatter = _scatter_figure(ctx, sts3k)
        if scatter is not None:
            section.figures.append(scatter)
        else:
            section.notes.append("No STS3k predictions in the folder: the scatter of model against human "
                                 "similarity needs them.")
    section.figures.append(_sets_figure(ctx, entries))


def _gap_figure(ctx: BuildContext, sts3k: list[Entry]):
    names, non, adv, gap, published = [], [], [], [], []
    for e in sts3k:
        names.append(e.model)
        non.append(_triplet(e, "non"))
        adv.append(_triplet(e, "adv"))
        gap.append(_triplet(e, "non_minus_adv"))
        published.append(False)
    for m in REFERENCE_MODELS:
        pn = ctx.index.published_value(m, "sts3k", "non", "spearman")
        pa = ctx.index.published_value(m, "sts3k", "adv", "spearman")
        if pn and pa:
            names.append(f"{m} (published)")
            non.append((pn.value, None, None))
            adv.append((pa.value, None, None))
            gap.append((pn.value - pa.value, None, None))
            published.append(True)
    fig = new_figure(12, 4.4)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [2.2, 1]})
    x = np.arange(len(names))
    w = 0.38
    for k, (label, trip, colour) in enumerate((("non-adversarial", non, NON_COLOUR), ("adversarial", adv, ADV_COLOUR))):
        vals = [t[0] if t[0] is not None else np.nan for t in trip]
        err = error_bars(*zip(*trip))
        bars = left.bar(x + (k - 0.5) * w, vals, w, yerr=err, capsize=2, color=colour, label=label,
                        error_kw={"linewidth": 0.8})
        for bar, pub in zip(bars, published):
            if pub:
                bar.set_alpha(0.45)
                bar.set_hatch("///")
    left.axhline(0, color="black", linewidth=0.6)
    left.set_xticks(x, names, rotation=30, ha="right")
    left.set_ylabel("Spearman ρ with human ratings")
    left.set_title("STS3k: non-adversarial vs adversarial pairs")
    fig.legend(*left.get_legend_handles_labels(), loc="outside upper left", frameon=False, ncols=2)
    style_axes(left)
    gvals = [t[0] if t[0] is not None else np.nan for t in gap]
    colours = [PUBLISHED_COLOUR if p else ctx.colours.get(n, "#333333") for n, p in zip(names, published)]
    right.barh(x, gvals, xerr=error_bars(*zip(*gap)), color=colours, capsize=2, error_kw={"linewidth": 0.8})
    for xi, v, (_, _, hi) in zip(x, gvals, gap):
        if np.isfinite(v):
            end = max(v, hi) if hi is not None else v
            right.text(end, xi, f"  {v:.2f}", va="center", ha="left" if v >= 0 else "right", fontsize=8)
    right.set_yticks(x, names)
    right.invert_yaxis()
    right.axvline(0, color="black", linewidth=0.6)
    right.set_xlabel("ρ(non) − ρ(adv)")
    right.set_title("Gap (higher = more structure-blind)", loc="right")  # centred, it ran off the page
    style_axes(right, "x")
    return ctx.sink.render(fig, "fig-sts3k-gap", "STS3k non vs adversarial, and the gap",
                           "Bars: Spearman ρ with 95% bootstrap intervals over pairs (ours); hatched bars and grey gaps are "
                           "published figures (Fodor et al. 2024, Table 9), not computed here.")


def _triplet(e: Entry, subset: str):
    s = e.score("spearman", subset)
    return (None, None, None) if s is None else (s.value, s.ci_low, s.ci_high)


def _any_types(ctx: BuildContext):
    """Pair types from any model's ``sts3k-types`` predictions: the types come from the pairs' parses (and a
    fixed synonym model), not from the model scored, so one run colours every model's scatter."""
    for e in ctx.index.firsts("sts3k-types"):
        tp = e.predictions()
        if tp is not None and {"item", "type"} <= set(tp.columns):
            return tp[["item", "type"]].drop_duplicates("item")
    return None


def scatter_panels(ctx: BuildContext, sts3k: list[Entry]) -> list[tuple[Entry, pd.DataFrame, str]]:
    """Per model: its adversarial pairs with the colour of each (pair type where any model ran
    ``sts3k-types``, else negative/other) and what the colours mean."""
    panels = []
    shared_types = _any_types(ctx)
    for e in sts3k:
        preds = e.predictions()
        if preds is None or not {"item", "score", "gold", "subsets"} <= set(preds.columns):
            continue
        subsets = preds["subsets"].fillna("").str.split(",")
        adv = subsets.apply(lambda s: "adv" in s or "negative" in s).to_numpy()
        frame = preds.loc[adv, ["item", "score", "gold", "subsets"]].copy()
        types = ctx.index.first(e.model, "sts3k-types")
        tp = types.predictions() if types is not None else None
        if tp is None or not {"item", "type"} <= set(tp.columns):
            tp = shared_types
        if tp is not None and {"item", "type"} <= set(tp.columns):
            frame = frame.merge(tp[["item", "type"]], on="item", how="left")
            frame["colour_by"] = frame["type"].where(frame["type"].isin(list(ADV_TYPES)), "other")
            legend_source = "types inferred by sts3k-types"
        else:
            frame["colour_by"] = np.where(frame["subsets"].str.contains("negative"), "negative", "other")
            legend_source = "subset (run sts3k-types for pair types)"
        panels.append((e, frame, legend_source))
    return panels


def _scatter_figure(ctx: BuildContext, sts3k: list[Entry]):
    panels = scatter_panels(ctx, sts3k)
    if not panels:
        return None
    fig = new_figure(5.2 * len(panels), 4.6)
    axes = np.atleast_1d(fig.subplots(1, len(panels), squeeze=False)[0])
    for ax, (e, frame, legend_source) in zip(axes, panels):
        order = ["added_modifiers", "paraphrase", "double_swap", "triple_swap", "quadruple_swap", "negative", "other"]
        for t in order:
            part = frame[frame["colour_by"] == t]
            if part.empty:
                continue
            label = ADV_TYPES.get(t, "other / unlabelled") + f" ({len(part)})"
            ax.scatter(part["gold"], part["score"], s=7, alpha=0.6, color=TYPE_COLOURS[t], label=label,
                       linewidths=0, rasterized=True)
        rho = e.score("spearman", "adv")
        title = e.model + (f"  (adv ρ = {rho.value:.3f})" if rho is not None and rho.value is not None else "")
        ax.set_title(title)
        ax.set_xlabel("human similarity (0–1)")
        ax.set_ylabel("model similarity")
        style_axes(ax, "both")
        ax.legend(loc="lower right", fontsize=7, frameon=True, framealpha=0.8, markerscale=1.8,
                  title=legend_source, title_fontsize=7)
    return ctx.sink.render(fig, "fig-sts3k-scatter", "Model vs human similarity on adversarial STS3k pairs",
                           "Every adversarial pair (and the negatives), coloured by pair type. A structure-sensitive model "
                           "ranks the swaps (humans rate them low) below the added-modifier pairs.")


def _sets_figure(ctx: BuildContext, entries: list[Entry]):
    tasks, models = ctx.index.layout(entries, TASK_ORDER)
    fig = new_figure(max(6.0, 1.1 * len(tasks) * max(1, len(models)) * 0.6 + 2), 3.6)
    ax = fig.subplots()
    x = np.arange(len(tasks))
    w = 0.8 / max(1, len(models))
    for k, m in enumerate(models):
        # every set on all its pairs (sts3k's main is adv)
        vals, yerr = bar_data([None if (e := ctx.index.first(m, t)) is None else e.score("spearman", "all")
                               for t in tasks])
        ax.bar(x + (k - (len(models) - 1) / 2) * w, vals, w, yerr=yerr, capsize=2,
               color=ctx.colours[m], label=m, error_kw={"linewidth": 0.8})
    ax.set_xticks(x, tasks)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_ylabel("Spearman ρ (all pairs)")
    ax.set_title("Every STS set")
    ax.legend(frameon=False, ncols=min(4, len(models)))
    style_axes(ax)
    return ctx.sink.render(fig, "fig-sts-sets", "Spearman ρ on every STS set",
                           "Spearman ρ on all pairs of each STS task with its 95% bootstrap interval over pairs.")


#: The paper's headline: Spearman on the adversarial pairs, and the non − adv gap (structure blindness).
#: The first is sts3k's main score (``main_subset="adv"``), the one number every view shows for the task.
HEADLINES = (Headline("STS3k adv ρ", "sts3k", "adv", "spearman", +1),
             Headline("STS3k non−adv gap", "sts3k", "non_minus_adv", "spearman", -1,
                      caveat="a model with no signal has a gap near 0 (random vectors win it): read it beside adv ρ"))
register_section(SUITE, title=TITLE, order=10, fill=fill, items=items, task_order=TASK_ORDER, headlines=HEADLINES,
                 intro=(
    "Spearman correlation between model similarities and mean human ratings. STS3k separates word overlap "
    "from meaning: a structure-blind model does well on the ordinary (non-adversarial) pairs and poorly on "
    "the adversarial ones, so the gap non − adv measures structure blindness."))
