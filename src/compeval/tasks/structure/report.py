"""Structure suite: the per-type profile against humans, modifier effects, minimal-pair ordering and the
STS3k data-quality figures (Fodor et al. 2024, "structure analyses")."""
from __future__ import annotations

import numpy as np

from ...report.figures import HUMAN, PUBLISHED_COLOUR, label_axes, new_figure, style_axes
from ...report.loading import Entry
from ...report.sections import register_section
from ...report.sections.base import BuildContext, Cell, ItemColumns, Section, Table, bar_data, error_bars, fmt, fmt_ci

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


def fill(ctx: BuildContext, section: Section, entries: list[Entry]) -> None:
    types = ctx.index.firsts("sts3k-types")
    if types:
        if types[0].score("profile_human", "category:modifiers") is not None:  # results before version 2 lack it
            section.figures.append(_category_figure(ctx, types))
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
        if rel[0].score("ks_shuffled", "all") is not None:  # results before version 2 lack it
            section.figures.append(_rating_figure(ctx, rel[0]))
    finetune_figs, finetune_tables = finetune_figures(ctx)  # Figures 6, 7 and 11
    section.figures += finetune_figs
    section.tables += finetune_tables


CATEGORY_LABELS = {"modifiers": "Modifiers", "paraphrase": "Paraphrase", "single": "Single", "swap_2": "Swap-2",
                   "swap_3": "Swap-3", "swap_4": "Swap-4", "negative": "Negative", "zero": "Zero"}


register_section(SUITE, title=TITLE, order=20, fill=fill, items=items, task_order=TASK_ORDER, intro=(
    "Where the STS3k argument was made: similarity by pair type relative to added-modifier pairs (humans fall "
    "as more of the structure changes; bag-of-words models stay flat), how much one added modifier lowers "
    "similarity, and whether a model orders generated minimal pairs as humans do."))


def _category_figure(ctx: BuildContext, types: list[Entry]):
    """Figure 8 of the paper: the profile over its eight categories, the headline MAD in each label."""
    order = list(CATEGORY_LABELS)
    fig = new_figure(11, 4.2)
    ax = fig.subplots()
    x = np.arange(len(order))
    hv = [types[0].value("profile_human", f"category:{c}") for c in order]
    ax.plot(x, [np.nan if v is None else v for v in hv], "-o", color=HUMAN, linewidth=2.2, label="humans")
    for k, e in enumerate(types):
        v, yerr = bar_data([e.score("profile_model", f"category:{c}") for c in order])
        v = np.array(v)
        mad = e.value("profile_mad", "categories")
        shift = (k - (len(types) - 1) / 2) * 0.08
        ax.errorbar(x + shift, v, yerr=yerr, fmt="none", ecolor=ctx.colours[e.model],
                    elinewidth=0.8, capsize=2)
        ax.plot(x + shift, v, "-s", color=ctx.colours[e.model], markersize=5,
                label=e.model + (f" (MAD {mad:.2f})" if mad is not None else ""))
    ax.set_xticks(x, [CATEGORY_LABELS[c] for c in order])
    ax.axhline(1.0, color="#888888", linewidth=0.6, linestyle=":")
    label_axes(ax, "mean similarity ÷ mean on Modifiers", "Profile over the paper's eight categories (Figure 8)")
    pub = ", ".join(f"{p.model} {p.value:.2f}" for p in ctx.index.published("sts3k-types", "categories", "profile_mad"))
    return ctx.sink.render(fig, "fig-sts3k-categories", "Profile over the paper's categories (Figure 8)",
                           "Mean similarity per category of the paper's Figure 8 (inferred types mapped to categories: "
                           "docs/structure.md), each divided by the same judge's mean on Modifiers pairs (1–2 added "
                           "modifiers), with 95% bootstrap intervals over pairs. MAD = mean absolute deviation from the "
                           "human profile over the eight categories, the headline of sts3k-types (lower is closer to "
                           f"humans). Published (Figure 8, on the paper's labels): {pub}.")


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
        v, yerr = bar_data([e.score("profile_model", t) for t in order])
        v = np.array(v)
        mad = e.value("profile_mad", "all")
        label = e.model + (f" (MAD over types {mad:.2f})" if mad is not None else "")
        shift = (k - (len(types) - 1) / 2) * 0.08
        ax.errorbar(x_plot + shift, v, yerr=yerr, fmt="none", ecolor=ctx.colours[e.model],
                    elinewidth=0.8, capsize=2)
        ax.plot(x_plot[: len(STRUCTURAL)] + shift, v[: len(STRUCTURAL)], "-s", color=ctx.colours[e.model],
                label=label, markersize=5)
        ax.plot(x_plot[len(STRUCTURAL):] + shift, v[len(STRUCTURAL):], "s", color=ctx.colours[e.model], markersize=5)
    ax.set_xticks(x_plot, [LABELS[t] for t in order])
    ax.axhline(1.0, color="#888888", linewidth=0.6, linestyle=":")
    label_axes(ax, "mean similarity ÷ mean on added-modifier pairs",
               "Per-type profile (structural change grows to the right; paraphrase and negative apart)")
    return ctx.sink.render(fig, "fig-sts3k-profile", "Per-type profile against humans",
                           "Mean similarity per inferred pair type, each divided by the same judge's mean on added-modifier "
                           "pairs, with 95% bootstrap intervals over pairs. MAD = mean absolute deviation from the human "
                           "profile over the 14 inferred types (lower is closer to humans): the detail beside the "
                           "headline over the paper's eight categories, which is the one comparable with Figure 8.")


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
        vals, yerr = bar_data([e.score(metric, kind) for kind in kinds])
        ax.bar(x + (k - (len(series) - 1) / 2) * w, vals, w, yerr=yerr, capsize=2, color=colour,
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
        v, yerr = bar_data([e.score("mean_similarity", t) for t in order])
        agree = e.main
        label = e.model + (f" (order agreement {agree.value:.2f})" if agree and agree.value is not None else "")
        ax.errorbar(x, v, yerr=yerr, fmt="-o", color=ctx.colours[e.model], capsize=2,
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


def _rating_figure(ctx: BuildContext, entry: Entry):
    """Figure 2 of the paper: histogram of the pair means against ratings shuffled within each rater."""
    ks = entry.score("ks_shuffled", "all")
    hist = ks.details["histogram"]
    edges = np.asarray(hist["bin_edges"])
    fig = new_figure(8, 4)
    ax = fig.subplots()
    width = np.diff(edges)
    for key, label, colour in (("actual", "actual ratings", "#1f4e99"), ("shuffled", "shuffled ratings", "#c0392b")):
        ax.bar(edges[:-1], hist[key], width, align="edge", alpha=0.6, color=colour, label=label)
    ax.set_xlim(0, 1)
    ax.set_xlabel("normalised rating (pair mean)")
    ax.set_ylabel("pairs")
    p = ks.details["p_value"]
    ax.set_title(f"STS3k ratings against shuffled ratings: KS D = {ks.value:.3f}, p = {p:.1e}")
    ax.legend(frameon=False)
    style_axes(ax)
    pub = ", ".join(f"D = {q.value:.3f}" for q in entry.info.published if q.metric == "ks_shuffled")
    return ctx.sink.render(fig, "fig-sts3k-ratings-shuffled", "Rating distribution against shuffled ratings (Figure 2)",
                           f"Mean rating of each of the {ks.n} pairs (check pairs excluded), (mean − 1)/6, against the "
                           "same means after each participant's ratings were shuffled among the pairs they rated; "
                           f"two-sample Kolmogorov–Smirnov D = {ks.value:.3f}, p = {p:.1e} (scipy). Published: "
                           f"{pub or 'D = .310'} (the authors' one shuffle; it varies a little with the seed).")

# Fine-tuning figures (Fodor, De Deyne & Suzuki 2024, section 4.7): 6 and 11 (Spearman against the regressor's
# ``details.n_parameters``; 6 on compact features, 11 on full vectors) and 7 (full fine-tuning), read from results.

PARAM_SPLITS = (("random", "random split (80/20)"), ("non_to_adv", "trained on non, tested on adv"))
FIG7_SPLITS = (("untrained", "untrained"), ("random", "random split (k-fold)"), ("non_to_adv", "non → adv"))


def finetune_figures(ctx: BuildContext) -> tuple[list, list[Table]]:
    """(figures, tables) for the fine-tuning results present; empty when there are none."""
    out, tables = [], []
    mlp = ctx.index.firsts("sts3k-finetune")
    if mlp:
        fig = _parameter_figure(ctx, mlp, compact=True)
        if fig is not None:
            out.append(fig)
        fig = _parameter_figure(ctx, mlp, compact=False)
        if fig is not None:
            out.append(fig)
    full = ctx.index.firsts("sts3k-finetune-full")
    if full:
        out.append(_full_figure(ctx, full))
        tables.append(_full_table(full))
    return out, tables


def _curve(e: Entry, split: str, features: str) -> list[tuple[int, float | None, float | None, float | None]]:
    """(parameters, value, ci_low, ci_high) per depth, in order of parameter count."""
    rows = []
    for s in e.result.scores:
        parts = s.subset.split(":")
        if s.metric == "spearman" and len(parts) == 3 and parts[0] == split and parts[1] == features \
                and "n_parameters" in s.details:
            rows.append((int(s.details["n_parameters"]), s.value, s.ci_low, s.ci_high))
    return sorted(rows)


def _parameter_figure(ctx: BuildContext, entries: list[Entry], compact: bool):
    def features(e: Entry) -> str:
        roles = any(s.subset.split(":")[1:2] == ["roles"] for s in e.result.scores)
        return ("roles" if roles else "pca") if compact else "full"

    series = [(e, features(e)) for e in entries]
    series = [(e, f) for e, f in series if _curve(e, "random", f) or _curve(e, "non_to_adv", f)]
    if not series:
        return None
    fig = new_figure(11, 3.8)
    axes = fig.subplots(1, 2, sharey=True)
    lowest = 0.0
    for ax, (split, label) in zip(axes, PARAM_SPLITS):
        for e, f in series:
            rows = _curve(e, split, f)
            if not rows:
                continue
            x = [r[0] for r in rows]
            v = [np.nan if r[1] is None else r[1] for r in rows]
            lowest = min(lowest, np.nanmin(v + [0.0]))
            ax.errorbar(x, v, yerr=error_bars(*zip(*[r[1:] for r in rows])), fmt="-o", capsize=2, markersize=4,
                        color=ctx.colours[e.model], label=f"{e.model} ({'role similarities' if f == 'roles' else f})")
        ax.set_xscale("log")
        ax.set_xlabel("regressor parameters")
        ax.set_title(label)
        style_axes(ax)
    axes[0].set_ylabel("Spearman on the test pairs")
    axes[0].set_ylim(max(-1.0, lowest - 0.1), 1.0)  # a t interval over few repeats can reach far past ±1
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper", frameon=False)
    if compact:
        return ctx.sink.render(fig, "fig-finetune-params", "Figure 6: fine-tuning generalisation by regressor size",
                               "MLP regressors with 0–3 hidden layers (about tenfold more parameters per layer) on each "
                               "model's compact features: PCA-8 of its sentence vectors (both sentences concatenated), "
                               "or the role model's 8 role similarities. Mean Spearman over the repeats with a t "
                               "interval. Published: with enough parameters every model reaches 0.7–0.8 on the random "
                               "split; no transformer learns the adversarial pairs from the ordinary ones, while the "
                               "role model stays near 0.6.")
    return ctx.sink.render(fig, "fig-finetune-params-full", "Figure 11: the same without PCA",
                           "As Figure 6, on each model's full sentence vectors (no PCA reduction): the paper's check that "
                           "the reduction to 8 components is not what stops transfer to the adversarial pairs.")


def _full_figure(ctx: BuildContext, entries: list[Entry]):
    published = {}
    for p in ctx.index.published("sts3k-finetune-full", metric="spearman"):
        published.setdefault(p.model, {})[p.subset] = p.value
    series = [(e.model, ctx.colours[e.model], [e.score("spearman", k) for k, _ in FIG7_SPLITS], False)
              for e in entries]
    series += [(f"{m} (published)", PUBLISHED_COLOUR, vals, hatch)
               for (m, vals), hatch in zip(published.items(), ("//", "..", "xx", "\\\\"))]
    fig = new_figure(10, 3.8)
    ax = fig.subplots()
    x = np.arange(len(FIG7_SPLITS))
    w = 0.8 / len(series)
    for k, (label, colour, vals, hatch) in enumerate(series):
        shift = (k - (len(series) - 1) / 2) * w
        if hatch:  # a published series
            v = [vals.get(s, np.nan) for s, _ in FIG7_SPLITS]
            ax.bar(x + shift, v, w, color="white", edgecolor=colour, hatch=hatch, label=label)
            continue
        v, yerr = bar_data(vals)
        ax.bar(x + shift, v, w, yerr=yerr, capsize=2, color=colour, label=label,
               error_kw={"linewidth": 0.8})
    ax.set_xticks(x, [label for _, label in FIG7_SPLITS])
    ax.axhline(0, color="#888888", linewidth=0.6)
    label_axes(ax, "Spearman (adv pairs; random: all pairs)", "Full fine-tuning on STS3k")
    return ctx.sink.render(fig, "fig-finetune-full", "Figure 7: full fine-tuning",
                           "Untrained: the model's own cosines on the adversarial pairs. Random split: k-fold cross-"
                           "validation over all pairs, each pair predicted once by the fold model that did not train "
                           "on it. non → adv: trained on the ordinary pairs, tested on the adversarial ones (negatives "
                           "excluded). Transformers are fully fine-tuned (sentence-transformers' trainer, "
                           "CosineSimilarityLoss); the role model fits its 8 role weights on the same splits. 95% "
                           "bootstrap intervals over pairs. Hatched: the paper's values read from its Figure 7 (random split: "
                           "the midpoint of its 0.80–0.85).")


def _full_table(entries: list[Entry]) -> Table:
    rows = []
    for e in entries:
        row = [Cell(e.model)]
        for subset, _ in FIG7_SPLITS:
            s = e.score("spearman", subset)
            row.append(Cell(f"{fmt(s.value if s else None)} {fmt_ci(s.ci_low, s.ci_high) if s else ''}".strip(),
                            title=e.provenance()))
        counts = e.result.counts
        folds = counts.get("folds") or []
        secs = [f["seconds"] for f in folds if isinstance(f, dict) and "seconds" in f]
        recipe = counts.get("recipe") or {}
        setting = (f"{recipe.get('epochs')} epochs, batch {recipe.get('batch_size')}, lr {recipe.get('learning_rate')}"
                   if recipe else counts.get("training", ""))
        row += [Cell(str(counts.get("training", ""))), Cell(setting),
                Cell(f"{np.mean(secs):.0f} s" if secs else "–")]
        rows.append(row)
    return Table(id="table-finetune-full", caption="Full fine-tuning on STS3k (Figure 7's numbers)",
                 columns=["model", "untrained (adv)", "random split (k-fold, all)", "non → adv", "training",
                          "settings", "training time per run"], rows=rows,
                 note="Spearman with 95% bootstrap intervals. Published (Figure 7): SentBERT about 0.17 / 0.80–0.85 / "
                      "0.40; VerbNet-CN 0.65 / 0.80–0.85 / 0.57.")
