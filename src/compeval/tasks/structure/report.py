"""Structure suite: the per-type profile against humans, modifier effects, minimal-pair ordering and the
STS3k data-quality figures (Fodor et al. 2024, "structure analyses")."""
from __future__ import annotations

import numpy as np

from ...report.figures import HUMAN, new_figure, style_axes
from ...report.loading import Entry
from ...report.sections import register_section
from ...report.sections.base import BuildContext, Cell, ItemColumns, Section, Table, error_bars, fmt, fmt_ci
from .report_finetune import figures as finetune_figures

SUITE = "structure"
TITLE = "Structure analyses (STS3k pair types, minimal pairs)"
TASK_ORDER = ["sts3k-types", "minimal-pairs", "sts3k-finetune"]
TASK_ORDER += ["sts3k-finetune-full"]
STRUCTURAL = ["added_modifiers", "single_verb", "single_dobj", "single_subj", "double_swap", "triple_swap",
              "quadruple_swap"]
APART = ["paraphrase", "negative"]
LABELS = {"added_modifiers": "added\nmodifiers", "single_verb": "single\nverb", "single_dobj": "single\nobject",
          "single_subj": "single\nsubject", "double_swap": "double\nswap", "triple_swap": "triple\nswap",
          "quadruple_swap": "quadruple\nswap", "paraphrase": "paraphrase", "negative": "negative"}


def items(entry: Entry) -> ItemColumns | None:
    """minimal-pairs: per base sentence, the share of variant-type pairs ordered as humans order them."""
    if entry.task_name != "minimal-pairs":
        return None  # profile MAD and fine-tuning are not means of per-item values
    preds = entry.predictions()
    if preds is None or not {"base", "type", "score"} <= set(preds.columns):
        return None
    pairs = [s.subset.split(">") for s in entry.result.scores if s.metric == "order_agreement" and ">" in s.subset]
    if not pairs:
        return None
    means = preds.groupby(["base", "type"])["score"].mean().unstack()
    agree = []
    for hi, lo in pairs:
        if hi not in means or lo not in means:
            return None
        d = means[hi].to_numpy() - means[lo].to_numpy()
        agree.append(np.where(d > 0, 1.0, np.where(d == 0, 0.5, 0.0)))
    per_base = np.vstack(agree).mean(axis=0)
    return ItemColumns(kind="mean", keys=means.index.astype(str).to_numpy(), values=per_base,
                       note="per base sentence: share of the type pairs ordered as humans order them")


def build(ctx: BuildContext) -> Section | None:
    entries = ctx.index.suite(SUITE)
    if not entries:
        return None
    section = Section(id="suite-structure", suite=SUITE, title=TITLE, intro=(
        "Where the STS3k argument was made: similarity by pair type relative to added-modifier pairs (humans fall "
        "as more of the structure changes; bag-of-words models stay flat), how much one added modifier lowers "
        "similarity, and whether a model orders generated minimal pairs as humans do."))
    types = ctx.index.firsts("sts3k-types")
    if types:
        section.figures.append(_profile_figure(ctx, types))
        drops = _drop_figure(ctx, types)
        if drops is not None:
            section.figures.append(drops)
    pairs = ctx.index.firsts("minimal-pairs")
    if pairs:
        section.figures.append(_minimal_pairs_figure(ctx, pairs))
    rel = ctx.index.by_name("sts3k-reliability")
    if rel:
        section.tables.append(_reliability_table(rel[0]))
    finetune_figs, finetune_tables = finetune_figures(ctx)  # Figures 6, 7 and 11
    section.figures += finetune_figs
    section.tables += finetune_tables
    return section


def _profile_figure(ctx: BuildContext, types: list[Entry]):
    order = STRUCTURAL + APART
    fig = new_figure(11, 4.2)
    ax = fig.subplots()
    x = np.arange(len(order))
    x_plot = np.where(np.arange(len(order)) >= len(STRUCTURAL), x + 0.6, x)  # a gap before the set-apart types
    human = [types[0].score("profile_human", t) for t in order]
    hv = np.array([np.nan if s is None or s.value is None else s.value for s in human])
    ax.plot(x_plot[: len(STRUCTURAL)], hv[: len(STRUCTURAL)], "-o", color=HUMAN, linewidth=2.2, label="humans")
    ax.plot(x_plot[len(STRUCTURAL):], hv[len(STRUCTURAL):], "o", color=HUMAN, markersize=7)
    for k, e in enumerate(types):
        trips = [(s.value, s.ci_low, s.ci_high) if s is not None else (None, None, None)
                 for s in (e.score("profile_model", t) for t in order)]
        v = np.array([np.nan if t[0] is None else t[0] for t in trips])
        mad = e.value("profile_mad", "all")
        label = e.model + (f" (MAD {mad:.2f})" if mad is not None else "")
        shift = (k - (len(types) - 1) / 2) * 0.08
        ax.errorbar(x_plot + shift, v, yerr=error_bars(*zip(*trips)), fmt="none", ecolor=ctx.colours[e.model],
                    elinewidth=0.8, capsize=2)
        ax.plot(x_plot[: len(STRUCTURAL)] + shift, v[: len(STRUCTURAL)], "-s", color=ctx.colours[e.model],
                label=label, markersize=5)
        ax.plot(x_plot[len(STRUCTURAL):] + shift, v[len(STRUCTURAL):], "s", color=ctx.colours[e.model], markersize=5)
    ax.set_xticks(x_plot, [LABELS[t] for t in order])
    ax.axhline(1.0, color="#888888", linewidth=0.6, linestyle=":")
    ax.set_ylabel("mean similarity ÷ mean on added-modifier pairs")
    ax.set_title("Per-type profile (structural change grows to the right; paraphrase and negative apart)")
    pub = ", ".join(f"{p.model} {p.value:.2f}" for p in ctx.index.published("sts3k-types", "all", "profile_mad"))
    fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", frameon=False)
    style_axes(ax)
    return ctx.sink.render(fig, "fig-sts3k-profile", "Per-type profile against humans",
                           "Mean similarity per inferred pair type, each divided by the same judge's mean on added-modifier "
                           "pairs, with 95% bootstrap intervals over pairs. MAD = mean absolute deviation from the human "
                           f"profile over the types (lower is closer to humans). Published MAD (on the paper's labels): {pub}.")


def _drop_figure(ctx: BuildContext, types: list[Entry]):
    kinds = sorted({s.subset for s in types[0].result.scores
                    if s.metric == "modifier_drop_model" and s.subset.startswith("listed:")})
    if not kinds:
        return None
    fig = new_figure(11, 3.6)
    ax = fig.subplots()
    x = np.arange(len(kinds))
    series = [("humans", types[0], "modifier_drop_human", HUMAN)] + [
        (e.model, e, "modifier_drop_model", ctx.colours[e.model]) for e in types]
    w = 0.8 / len(series)
    for k, (label, e, metric, colour) in enumerate(series):
        trips = [(s.value, s.ci_low, s.ci_high) if s is not None else (None, None, None)
                 for s in (e.score(metric, kind) for kind in kinds)]
        vals = [np.nan if t[0] is None else t[0] for t in trips]
        ax.bar(x + (k - (len(series) - 1) / 2) * w, vals, w, yerr=error_bars(*zip(*trips)), capsize=2, color=colour,
               label=label, error_kw={"linewidth": 0.8})
    ax.set_xticks(x, [k.split(":", 1)[1] for k in kinds])
    ax.set_ylabel("1 − similarity")
    ax.set_title("Drop in similarity from one added modifier, by modifier type (listed pairs)")
    ax.legend(frameon=False, ncols=len(series))
    style_axes(ax)
    return ctx.sink.render(fig, "fig-modifier-drops", "Modifier effects",
                           "Mean 1 − similarity over the STS3k pairs that differ by exactly one added modifier of the "
                           "listed type, 95% bootstrap intervals. Published human drop: about 0.216 for every type except "
                           "passive (about 0.097).")


def _minimal_pairs_figure(ctx: BuildContext, pairs: list[Entry]):
    order = [s.subset for s in pairs[0].result.scores if s.metric == "mean_similarity"]
    fig = new_figure(9, 3.4)
    ax = fig.subplots()
    x = np.arange(len(order))
    for e in pairs:
        trips = [(s.value, s.ci_low, s.ci_high) if s is not None else (None, None, None)
                 for s in (e.score("mean_similarity", t) for t in order)]
        v = [np.nan if t[0] is None else t[0] for t in trips]
        agree = e.main
        label = e.model + (f" (order agreement {agree.value:.2f})" if agree and agree.value is not None else "")
        ax.errorbar(x, v, yerr=error_bars(*zip(*trips)), fmt="-o", color=ctx.colours[e.model], capsize=2,
                    label=label, markersize=4, linewidth=1.2)
    ax.set_xticks(x, [t.replace("_", " ") for t in order])
    ax.set_ylabel("mean similarity to the base sentence")
    ax.set_title("Generated minimal pairs (human order: modifier > single > double > triple > quadruple)")
    ax.legend(frameon=False)
    style_axes(ax)
    return ctx.sink.render(fig, "fig-minimal-pairs", "Minimal pairs by variant type",
                           "Mean similarity of each variant type to its base sentence (95% intervals over base sentences). "
                           "Order agreement is the share of type pairs a model orders as STS3k humans do (ties ½).")


def _reliability_table(e: Entry) -> Table:
    rows = []
    for subset in ("all", "non", "adv", "adv_noneg"):
        row = [Cell(subset)]
        for metric, with_published in (("split_half", True), ("kappa_linear", False),
                                       ("kappa_linear_spearman_brown", True), ("mean_rater_sd", True)):
            s = e.score(metric, subset)
            row.append(Cell(f"{fmt(s.value if s else None)} {fmt_ci(s.ci_low, s.ci_high) if s else ''}".strip(),
                            title=e.provenance()))
            if with_published:
                pub = e.published_value("Humans (split-half)", subset, metric)
                row.append(Cell(fmt(pub.value) if pub else "–", title=pub.citation if pub else "", cls="published"))
        rows.append(row)
    return Table(id="table-sts3k-reliability", caption="STS3k human-data reliability (model-independent)",
                 columns=["subset", "split-half (Spearman–Brown)", "published", "linear-weighted κ (raw)",
                          "κ Spearman–Brown corrected", "published", "mean rater SD", "published"], rows=rows,
                 note="100 random halvings of the participants; the 10 check pairs excluded; adv includes the 71 "
                      "negation pairs (adv_noneg: without them). The paper's kappas are the corrected 2κ/(1+κ). "
                      "Published: Fodor et al. 2024.")


register_section(SUITE, title=TITLE, order=20, build=build, items=items, task_order=TASK_ORDER)
