"""Lexical-composition suite: each model's score beside the majority baseline and the human figure
(Shwartz & Dagan 2019)."""
from __future__ import annotations

import numpy as np

from ...report.figures import HUMAN, label_axes, new_figure
from ...report.loading import Entry
from ...report.sections import register_section
from ...report.sections.base import BuildContext, Cell, ItemColumns, Section, Table, bar_data, fmt, unique_keys

SUITE = "lexcomp"
TITLE = "Lexical composition"
TASK_ORDER = ["lexcomp-vpc", "lexcomp-lvc", "lexcomp-nc-literality", "lexcomp-nc-relations", "lexcomp-an-attributes",
              "lexcomp-phrase-type"]


def items(entry: Entry) -> ItemColumns | None:
    """Span tasks: per test item, is the trained head right (span F1 of phrase type is not an item mean)."""
    if entry.result.task.main_metric != "accuracy":
        return None
    preds = entry.predictions()
    if preds is None or not {"model", "label"} <= set(preds.columns):
        return None  # baseline_only results have no model predictions
    if "split" in preds.columns:  # validation rows (each grid setting's head) follow the test items
        preds = preds[preds["split"].astype(str) == "test"].reset_index(drop=True)
    correct = (preds["model"].astype(int) == preds["label"].astype(int)).to_numpy(dtype=float)
    keys = unique_keys(preds, [c for c in ("ident", "span") if c in preds.columns])
    return ItemColumns(kind="mean", keys=keys, values=correct, note="trained head correct per test item")


def fill(ctx: BuildContext, section: Section, entries: list[Entry]) -> None:
    tasks, models = ctx.index.layout(entries, TASK_ORDER)
    series = [(m, ctx.colours[m]) for m in models] + [("majority baseline", "#BBBBBB")]
    fig = new_figure(max(8.0, 1.6 * len(tasks) + 4.5), 3.8)
    ax = fig.subplots()
    x = np.arange(len(tasks))
    w = 0.8 / len(series)
    for k, (name, colour) in enumerate(series):
        scores = []
        for t in tasks:
            if name == "majority baseline":
                e = next((e for e in entries if e.task_name == t), None)
                subset = "majority"
            else:
                e, subset = ctx.index.first(name, t), "all"
            scores.append(None if e is None else e.score(e.result.task.main_metric, subset))
        vals, yerr = bar_data(scores)
        ax.bar(x + (k - (len(series) - 1) / 2) * w, vals, w, yerr=yerr, capsize=2, color=colour,
               label=name, hatch="//" if name == "majority baseline" else "", edgecolor="white", linewidth=0.3,
               error_kw={"linewidth": 0.8})
    human = [ctx.index.published_value("Humans", t, "all", "accuracy") for t in tasks]
    hx = [xi for xi, h in zip(x, human) if h]
    if hx:
        ax.scatter(hx, [h.value for h in human if h], marker="D", s=40, color=HUMAN, zorder=5,
                   label="humans (published)")
    ax.set_xticks(x, [t.replace("lexcomp-", "") for t in tasks])
    ax.set_ylim(0, 1.05)
    label_axes(ax, "test accuracy (phrase type: span F1)", "Lexical composition: model vs majority baseline vs humans")
    section.figures.append(ctx.sink.render(
        fig, "fig-lexcomp", "Lexical composition scores beside baselines and humans",
        "Best setting chosen on validation, 95% bootstrap intervals over test items. Majority baseline: the best of "
        "Majority_All / _1 / _2 on validation. Humans: 100 re-annotated test items (Shwartz & Dagan 2019)."))
    weights = _layer_weights_table(ctx, tasks, models)
    if weights is not None:
        section.tables.append(weights)
    labels = _phrase_type_labels_table(ctx, models)
    if labels is not None:
        section.tables.append(labels)


register_section(SUITE, title=TITLE, order=50, fill=fill, items=items, task_order=TASK_ORDER, intro=(
    "Meaning shift (VPC, noun-compound literality) and implicit meaning (noun-compound relations, adjective "
    "attributes), each a classification in context with a small trained head over frozen representations. "
    "A score is only informative above the majority baseline; the human figure is the ceiling."))


def _layer_weights_table(ctx: BuildContext, tasks: list[str], models: list[str]) -> Table | None:
    """The paper's section 6: the learned scalar-mix layer weights per task and model (best mixing setting)."""
    rows = []
    for m in models:
        for t in tasks:
            e = ctx.index.first(m, t)
            mixes = (e.result.counts or {}).get("layer_weights") if e else None
            if not mixes:
                continue
            chosen = e.result.counts.get("chosen")
            setting = chosen if chosen in mixes else max(
                mixes, key=lambda k: (e.value(f"val_{e.result.task.main_metric}", k) or float("-inf")))
            w = mixes[setting]["weights"]
            val = next((s for s in e.result.scores if s.subset == setting and s.metric.startswith("val_")), None)
            epochs = f"{val.details.get('best_epoch')} / {val.details.get('epochs')}" if val else "–"
            rows.append([Cell(m), Cell(t.replace("lexcomp-", "")), Cell(setting + (" (chosen)" if setting == chosen else "")),
                         Cell(" ".join(f"{v:.2f}" for v in w), title="layer 0 (embeddings) first"),
                         Cell(str(max(range(len(w)), key=w.__getitem__))), Cell(fmt(mixes[setting]["gamma"])),
                         Cell(epochs)])
    if not rows:
        return None
    return Table(id="table-lexcomp-layer-weights", caption="Learned scalar-mix layer weights (softmax-normalised)",
                 columns=["model", "task", "setting", "weights, layer 0 (embeddings) → top", "heaviest layer", "γ",
                          "best epoch / epochs"],
                 rows=rows, note="Shwartz & Dagan (2019) section 6 read these weights to see which layers each task "
                                 "draws on. Weights sum to 1 (uniform before training); γ scales the mixed vector. "
                                 "The weights are the best validation epoch's: an early best epoch leaves them near "
                                 "uniform.")


def _phrase_type_labels_table(ctx: BuildContext, models: list[str]) -> Table | None:
    """Phrase type per span type: precision, recall, F1 and what became of the gold spans."""
    rows = []
    for m in models:
        e = ctx.index.first(m, "lexcomp-phrase-type")
        if e is None:
            continue
        for s in e.result.scores:
            if not s.subset.startswith("label=") or s.metric != "span_f1":
                continue
            d = s.details
            confused = ", ".join(f"{k} {v}" for k, v in sorted(d.get("confused_with", {}).items(), key=lambda kv: -kv[1]))
            rows.append([Cell(m), Cell(s.subset[len("label="):]), Cell(str(d.get("gold", 0))),
                         Cell(fmt(d.get("precision"))), Cell(fmt(d.get("recall"))), Cell(fmt(s.value)),
                         Cell(f"{d.get('wrong_type', 0)}" + (f" ({confused})" if confused else "")),
                         Cell(str(d.get("wrong_boundary", 0))), Cell(str(d.get("missed", 0))),
                         Cell(str(d.get("spurious", 0)))])
    if not rows:
        return None
    return Table(id="table-lexcomp-phrase-type-labels", caption="Phrase type per label (test, chosen setting)",
                 columns=["model", "type", "gold spans", "precision", "recall", "F1", "wrong type (as)",
                          "wrong boundaries", "missed", "spurious"], rows=rows,
                 note="Gold spans are correct, typed wrongly (same boundaries), bounded wrongly (an overlapping "
                      "prediction of the same type), overlapped only by other spans, or missed; spurious = "
                      "predicted spans of this type overlapping no gold span.")
