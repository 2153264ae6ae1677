"""Modifier-consistency suite: the paper's test tables as heatmaps by adjective type (Carvalho et al. 2024)."""
from __future__ import annotations

import numpy as np

from ...report.figures import heatmap, new_figure
from ...report.loading import Entry
from ...report.sections import Headline, register_section
from ...report.sections.base import BuildContext, Cell, ItemColumns, Section, Table, fmt, fmt_ci, unique_keys
from .published import MODIFIER_TYPES, TABLE6_PAIRS, TABLE7_PAIRS

SUITE = "modifiers"
TITLE = "Montague modifier consistency"
TASK_ORDER = ["modifiers-test1", "modifiers-test2", "modifiers-test3", "modifiers-controls"]
TYPES = list(MODIFIER_TYPES)
TYPE_NAMES = {"S-I": "subsective intersective", "S-NI": "subsective non-intersective", "NS-Pl": "plain non-subsective",
              "NS-Pr": "privative non-subsective", "A": "ambiguous"}


def items(entry: Entry) -> ItemColumns | None:
    """Per-case consistency (or distance) within the main subset; nouns are the averaging unit (macro)."""
    preds = entry.predictions()
    if preds is None or "subset" not in preds.columns:
        return None
    metric = entry.result.task.main_metric  # e.g. test3_macro, syn_distance_macro
    base, _, weighting = metric.rpartition("_")
    column = "holds" if base in ("test1", "test2", "test3") else base
    noun = "noun1" if "noun1" in preds.columns else "noun"
    if column not in preds.columns or noun not in preds.columns or weighting not in ("macro", "micro"):
        return None
    subset = entry.result.task.main_subset
    labels = preds["subset"].astype(str)
    if subset == "AN":
        keep = ~labels.str.contains("|", regex=False)
    elif subset == "AAN":
        keep = labels.str.contains("|", regex=False)
    else:
        keep = labels == subset
    part = preds[keep.to_numpy()]
    key_cols = [c for c in ("phrase", "adj1", "adj2", "noun1", "noun2") if c in part.columns]
    values = part[column].astype("float64").to_numpy()
    return ItemColumns(kind="mean", keys=unique_keys(part, key_cols), values=values,
                       clusters=part[noun].astype(str).to_numpy(), weighting=weighting,
                       note=f"{column} per case in {subset}; nouns resampled and swapped as clusters")


def fill(ctx: BuildContext, section: Section, entries: list[Entry]) -> None:
    models = ctx.index.models
    t1 = [(m, ctx.index.first(m, "modifiers-test1")) for m in models]
    t1 = [(m, e) for m, e in t1 if e is not None]
    if t1:
        section.figures.append(_test1_figure(ctx, t1))
    t2 = [(m, e) for m, e in ((m, ctx.index.first(m, "modifiers-test2")) for m in models) if e is not None]
    if t2:
        section.figures.append(_test2_figure(ctx, t2))
    t3 = [(m, e) for m, e in ((m, ctx.index.first(m, "modifiers-test3")) for m in models) if e is not None]
    if t3:
        section.figures.append(_test3_figure(ctx, t3))
    controls = [(m, e) for m, e in ((m, ctx.index.first(m, "modifiers-controls")) for m in models) if e is not None]
    if controls:
        section.tables.append(_controls_table(controls))
    types = _types_table(ctx)
    if types is not None:
        section.tables.append(types)
    section.tables.extend(_published_tables(ctx))


#: (task, subset, what the cases are grouped by) of the adjective-type test, in table order.
TYPE_TESTS = (("modifiers-test1", "AN", "test 1, AN phrases", "type"),
              ("modifiers-test1", "AAN", "test 1, AAN phrases", "ordered type pair"),
              ("modifiers-test2", "all", "test 2, phrase pairs", "type pair (a1, a2)"),
              ("modifiers-test3", "AN", "test 3, AN phrases", "type"))


def _p(value: float | None) -> str:
    if value is None:
        return "–"
    if value == 0:
        return "< 1e-300"  # below the smallest double: the χ² tail underflowed
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def _types_table(ctx: BuildContext) -> Table | None:
    """Kruskal–Wallis over the per-case outcomes by adjective type: H, df, the permutation p with the adjective
    as the unit (``types_kw_p``, the headline) and the asymptotic χ² p with the case as the unit
    (``types_kw_p_chi2``)."""
    rows = []
    for task, subset, label, grouping in TYPE_TESTS:
        for m in ctx.index.models:
            e = ctx.index.first(m, task)
            s = e.score("types_kw_h", subset) if e is not None else None
            if s is None:
                continue
            d = s.details
            p_perm, p_chi2 = (e.score(metric, subset) for metric in ("types_kw_p", "types_kw_p_chi2"))
            rows.append([Cell(m), Cell(label), Cell(grouping), Cell(fmt(s.value), title=e.provenance()),
                         Cell(str(d.get("df", "–"))), Cell(_p(p_perm.value if p_perm else None)),
                         Cell(_p(p_chi2.value if p_chi2 else None)), Cell(str(s.n))])
    if not rows:
        return None
    return Table(id="table-modifiers-types", caption="Do the adjective types differ? Kruskal–Wallis over the per-case "
                 "outcomes", columns=["model", "test", "grouped by", "H", "df", "p (unit: adjective; permuted)",
                                      "p (unit: phrase or comparison; asymptotic χ²)", "cases"],
                 rows=rows, note="The p-value is the permutation p (types_kw_p): the type labels are shuffled over "
                 "the 61 adjectives, the unit the claim is about. The asymptotic χ² p (types_kw_p_chi2) treats every "
                 "case (a phrase; in test 2 a comparison of two phrase pairs) as independent, which they are not: "
                 "every adjective meets the same 12 nouns. No statistic: every case had the same outcome.")


#: The paper's tables that the results carry, each beside compeval's values for the same columns:
#: (id, task, metric, caption, columns as (type, type) or type, decimals as printed).
PAPER_TABLES = (
    ("table2", "modifiers-test1", "test1_macro", "Test 1, AN phrases, by adjective type (Table 2)",
     MODIFIER_TYPES, 2),
    ("table6", "modifiers-test1", "test1_macro", "Test 1, AAN phrases, by the types of the first and second "
     "adjective (Tables 3 and 6)", TABLE6_PAIRS, 4),
    ("table7", "modifiers-test2", "test2_macro", "Test 2, by the types of a1 and a2 (Tables 4 and 7)",
     TABLE7_PAIRS, 4),
    ("table8", "modifiers-test3", "test3_macro", "Test 3, AN phrases, by adjective type (Tables 5 and 8)",
     MODIFIER_TYPES, 4),
)
PAPER_NOTE = ("Macro consistency (per noun, then over the 12 nouns) with its 95% interval (nouns resampled). The paper's "
              "rows, as printed, are behind the toggle: the appendix's four-decimal Tables 6-8 (the body's Tables 3-5 "
              "are shorter versions at two decimals, which differ from them in nine cells; docs/reproduction.md compares "
              "each printed table). The paper names no GloVe release: its code loads glove-wiki-gigaword-300 (300 d); "
              "word2vec is word2vec-google-news-300.")


def _published_tables(ctx: BuildContext) -> list[Table]:
    """The paper's Tables 2 and 6-8 beside compeval's rows for the same columns, behind a toggle."""
    tables = []
    for key, task, metric, caption, columns, digits in PAPER_TABLES:
        entries = [(m, e) for m, e in ((m, ctx.index.first(m, task)) for m in ctx.index.models) if e is not None]
        if not entries:
            continue
        subsets = [c if isinstance(c, str) else f"{c[0]}|{c[1]}" for c in columns]
        header = [c if isinstance(c, str) else f"({c[0]}, {c[1]})" for c in columns]
        rows = []
        for m, e in entries:
            cells = []
            for subset in subsets:
                sc = e.score(metric, subset)
                cells.append(Cell(fmt(sc.value if sc else None, digits), title=e.provenance(),
                                  sub=fmt_ci(sc.ci_low, sc.ci_high, digits) if sc else ""))
            rows.append([Cell(m)] + cells)
        published = []
        for m in dict.fromkeys(p.model for p in ctx.index.published(task, metric=metric)):
            vals = [ctx.index.published_value(m, task, s, metric) for s in subsets]
            if not any(v is not None for v in vals):
                continue
            cite = next(v.citation for v in vals if v is not None)
            published.append([Cell(f"{m} (published)", cls="published", title=cite)]
                             + [Cell(fmt(v.value, digits) if v is not None else "–", cls="published", title=cite)
                                for v in vals])
        tables.append(Table(id=f"table-modifiers-{key}", caption=caption, columns=["model"] + header, rows=rows,
                            note=PAPER_NOTE, published_rows=published))
    return tables


def _matrix(entries: list[tuple[str, Entry]], metric: str, cols: list[str]) -> np.ndarray:
    return np.array([[np.nan if (v := e.value(metric, c)) is None else v for c in cols] for _, e in entries])


def _test1_figure(ctx: BuildContext, t1):
    cols = ["AN", "AAN"] + TYPES
    fig = new_figure(7.5, 0.55 * len(t1) + 1.6)
    ax = fig.subplots()
    im = heatmap(ax, _matrix(t1, "test1_macro", cols), [m for m, _ in t1], cols)
    fig.colorbar(im, ax=ax, shrink=0.8, label="consistency")
    ax.set_title("Test 1, intersectivity of a single phrase: d(p, word) ≤ d(part, part)")
    return ctx.sink.render(fig, "fig-modifiers-test1", "Test 1 (single-phrase intersectivity)",
                           "Macro consistency for all AN and AAN phrases and per adjective type (AN). Mean pooling satisfies "
                           "the relation by construction, so 1.0 everywhere means mean-pooling behaviour; published: 1.0 "
                           "for GloVe, word2vec, LaBSE, stella and text-embedding-3-small.")


def _test2_figure(ctx: BuildContext, t2):
    n = len(t2)
    fig = new_figure(max(7.0, 4.3 * n + 0.8), 4.2)
    axes = np.atleast_1d(fig.subplots(1, n, squeeze=False)[0])
    im = None
    for ax, (m, e) in zip(axes, t2):
        mat = np.array([[np.nan if (v := e.value("test2_macro", f"{a}|{b}")) is None else v for b in TYPES] for a in TYPES])
        im = heatmap(ax, mat, TYPES, TYPES, cmap="RdBu", vmin=0.0, vmax=1.0)
        ax.set_title(m)
        ax.set_xlabel("type of a2")
        ax.set_ylabel("type of a1")
    fig.colorbar(im, ax=list(axes), shrink=0.8, label="consistency")
    fig.suptitle("Test 2, phrase-pair intersectivity: d(a1 n, a1 n′) < d(a2 n, a2 n′)", fontsize=10)
    return ctx.sink.render(fig, "fig-modifiers-test2", "Test 2 (phrase-pair intersectivity)",
                           "Rows: type of a1; columns: type of a2. Theory expects high values in the S-I row against "
                           "non-intersective columns; the diagonal is 0.5 by symmetry.")


def _test3_figure(ctx: BuildContext, t3):
    rows = [m for m, _ in t3]
    mat = list(_matrix(t3, "test3_macro", TYPES))
    published_rows = []
    published = ctx.index.published("modifiers-test3", metric="test3_macro")
    for m in dict.fromkeys(p.model for p in published):  # the paper's models, in its order
        vals = [ctx.index.published_value(m, "modifiers-test3", t, "test3_macro") for t in TYPES]
        if all(vals):
            rows.append(f"{m} (published)")
            mat.append([v.value for v in vals])
            published_rows.append(len(rows) - 1)
    fig = new_figure(7.5, 0.5 * len(rows) + 1.6)
    ax = fig.subplots()
    im = heatmap(ax, np.array(mat), rows, TYPES, hatch_rows=set(published_rows))
    for i in published_rows:
        ax.get_yticklabels()[i].set_color("#666666")
        ax.get_yticklabels()[i].set_style("italic")
    fig.colorbar(im, ax=ax, shrink=0.8, label="consistency")
    ax.set_title("Test 3, non-subsectivity: d(AN, A) < d(AN, N)")
    return ctx.sink.render(fig, "fig-modifiers-test3", "Test 3 (non-subsectivity)",
                           "Theory expects the highest consistency in the non-subsective (NS) types. Italic hatched rows are "
                           "published (Carvalho et al. 2024, Table 8; Table 5 to two decimals), not computed here.")


def _controls_table(controls) -> Table:
    metrics = [("test1_syn_phrase_macro", "test 1, phrase's first word → synonym"),
               ("test1_syn_words_macro", "test 1, each word → synonym"),
               ("test1_syn_parts_macro", "test 1, parts' first word → synonym"),
               ("syn_distance_macro", "d(phrase, synonym variant)")]
    rows = [[Cell(m)] + [Cell(fmt(e.value(metric, "AN")), title=e.provenance()) for metric, _ in metrics]
            for m, e in controls]
    return Table(id="table-modifiers-controls", caption="Synonym controls (AN phrases, macro)",
                 columns=["model"] + [label for _, label in metrics], rows=rows,
                 note="A representation of meaning should give the same consistency when a word is replaced by its "
                      "synonym, and a small distance between a phrase and its synonym variant.")


#: Consistency of the two tests that separate adjective types (test 1 holds for any mean of vectors).
HEADLINES = (Headline("modifiers test 2 (S-I|S-NI)", "modifiers-test2"),
             Headline("modifiers test 3 (NS-Pr)", "modifiers-test3"))
register_section(SUITE, title=TITLE, order=30, fill=fill, items=items, task_order=TASK_ORDER, headlines=HEADLINES,
                 headline_rest=False, intro=(
    "If embeddings stood for denotations, set inclusion between an adjective-noun phrase, its adjective and its "
    "noun would show as distance. Each cell is the consistency (share of cases where the relation holds), "
    "averaged per noun and then over the 12 nouns, by adjective type: "
    + "; ".join(f"{k} = {v}" for k, v in TYPE_NAMES.items()) + "."))
