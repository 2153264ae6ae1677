"""Assemble the report: leaderboard, one section per suite present, paired comparisons, provenance. One HTML
file with everything inline and a Content-Security-Policy that forbids any fetch: opening it is offline.
"""
from __future__ import annotations

import json
import time
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..errors import CompevalError
from ..metrics import MAX_RESAMPLES
from ..metrics.paired import PairedComparison, paired_test
from ..results.not_run import grouped, read_not_run
from ..results.store import atomic_write_bytes
from .figures import FORMATS, FigureSink, RenderedFigure, new_figure, require_matplotlib, style_axes
from .loading import Entry, ResultsIndex
from .sections import section, sections as registered_sections
from .sections.base import BuildContext, Cell, ItemColumns, Section, error_bars, fmt, fmt_ci
from .tables import columns, main_of, published_main, ranked

RECOMPUTE_TOLERANCE = {"spearman": 2e-3, "auc": 2e-3, "mean": 1e-6}
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'none'; base-uri 'none'; form-action 'none'"


@dataclass
class ReportInfo:
    """What was built: the file, its size and build time, and what it holds."""

    path: Path
    size_bytes: int
    seconds: float
    sections: list[str]
    figures: list[str]
    paired: int
    figure_files: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # sections that could not be drawn: the command fails


@dataclass
class Comparison:
    """Adjacent ranks ``a`` (rank ``rank_a``) and ``b`` on one task, and their paired test (None: not possible)."""

    suite: str
    task: str
    metric: str
    a: Entry
    b: Entry
    rank_a: int
    result: PairedComparison | None
    note: str = ""
    recomputed_ok: bool | None = None
    method: str = ""  # what the per-item values are and what is resampled




def check_report_settings(*, n_resamples: int, seed: int, figure_format: str = "svg",
                          n_permutations: int | None = None) -> None:
    """One line before any work when a setting is out of range (also called by ``build_report``)."""
    from ..context import MAX_SEED

    from ..metrics import MIN_RESAMPLES

    if not MIN_RESAMPLES <= n_resamples <= MAX_RESAMPLES:  # behind every 95% interval of the report
        raise CompevalError(f"--resamples {n_resamples}: must be from {MIN_RESAMPLES} to {MAX_RESAMPLES:,} (at "
                            f"least {MIN_RESAMPLES}: fewer resamples cannot span a 95% interval)")
    if n_permutations is not None and not 1 <= n_permutations <= MAX_RESAMPLES:
        raise CompevalError(f"permutations {n_permutations}: must be from 1 to {MAX_RESAMPLES:,}")
    if not 0 <= seed <= MAX_SEED:
        raise CompevalError(f"--seed {seed}: must be from 0 to {MAX_SEED}")
    if figure_format not in FORMATS:
        raise CompevalError(f"--format {figure_format!r}: choose {' or '.join(FORMATS)}")


def build_report(
    results_dir: Path | str,
    output: Path | str,
    *,
    figures_dir: Path | str | None = None,
    figure_format: str = "svg",
    title: str = "compeval report",
    n_resamples: int = 1000,
    n_permutations: int = 1000,
    seed: int = 0,
) -> ReportInfo:
    """Build the self-contained HTML report of ``results_dir`` into ``output``; ``figures_dir`` also writes
    each figure as ``<figure id>.<figure_format>``. Paired tests: ``n_resamples`` (interval), ``n_permutations``."""
    from ..outputs import check_output

    started = time.perf_counter()
    check_report_settings(n_resamples=n_resamples, seed=seed, figure_format=figure_format,
                          n_permutations=n_permutations)
    check_output(output, "report file", results=results_dir, folder=False)
    if figures_dir is not None:
        check_output(figures_dir, "figures folder", results=results_dir)
    require_matplotlib()
    index = ResultsIndex(results_dir)
    sink = FigureSink(figures_dir, figure_format)
    ctx = BuildContext(index=index, sink=sink)
    notes: list[str] = [f"left out {path}: {reason}" for path, reason in index.unreadable]

    with warnings.catch_warnings(record=True) as caught:  # plotting libraries' warnings name their own files
        warnings.simplefilter("always")
        comparisons, sections, errors, known, paired_fig, headline_fig = _build_parts(ctx, index, n_resamples,
                                                                                      n_permutations, seed)
    for message in dict.fromkeys(_first_line(w.message) for w in caught):
        notes.append(f"while drawing: {message}")
    page = _render(
        title=title, index=index, leaderboard=_leaderboard_tables(index, comparisons), sections=sections,
        headline_fig=headline_fig,
        comparisons=comparisons, paired_fig=paired_fig, provenance=_provenance(index),
        unknown_suites=sorted({e.suite for e in index.entries} - {s.suite for s in known}), notes=notes,
        not_run=grouped(read_not_run(index.root, {e.task_name for e in index.entries})),
        settings={"n_resamples": n_resamples, "n_permutations": n_permutations, "seed": seed},
    )
    output = Path(output)
    atomic_write_bytes(output, page.encode("utf-8"))
    rendered = [f for f in (headline_fig, *(f for s in sections for f in s.figures), paired_fig) if f is not None]
    figures = [f.id for f in rendered]  # in page order
    files = [p for f in rendered for p in f.files]
    return ReportInfo(path=output, size_bytes=output.stat().st_size, seconds=time.perf_counter() - started,
                      sections=["leaderboard", *[s.id for s in sections], "paired", "provenance"], figures=figures,
                      paired=sum(1 for c in comparisons if c.result), figure_files=files, warnings=notes,
                      errors=errors)


def _build_parts(ctx: BuildContext, index: ResultsIndex, n_resamples: int, n_permutations: int, seed: int):
    """The paired tests, suite sections (a failing one: an error line, and a section saying so) and figures."""
    comparisons = paired_comparisons(index, n_resamples=n_resamples, n_permutations=n_permutations, seed=seed)
    sections: list[Section] = []
    errors: list[str] = []
    known = registered_sections()
    for mod in known:
        try:
            sec = mod.build(ctx)
        except Exception as exc:  # the rest of the report is still written; the section says why it is empty
            msg = f"section {mod.suite} could not be drawn: {_first_line(exc)}"
            errors.append(msg)
            sec = Section(id=f"suite-{mod.suite}", suite=mod.suite, title=mod.title, intro="",
                          notes=[f"This section could not be drawn ({type(exc).__name__}: {exc})."])
        if sec is not None:
            sections.append(sec)
    paired_fig = _paired_figure(ctx, comparisons) if any(c.result for c in comparisons) else None
    headline_fig = _headline_figure(ctx)
    return comparisons, sections, errors, known, paired_fig, headline_fig


# -------------------------------------------------------------------------------------------- headline

def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text and not isinstance(exc, CompevalError) else \
        (text[0] if text else type(exc).__name__)


def _headline_figure(ctx: BuildContext) -> RenderedFigure | None:
    """The page's first figure: each suite's headline (the end-of-run ranking), one panel per headline, every
    model a point with its 95% interval in its own colour (the colour it has in every other figure)."""
    from .ranking import ranking

    rows = [r for r in ranking(ctx.index) if r.cells]
    if not rows:
        return None
    n = len(rows)
    ncols = min(n, 4)
    nrows = -(-n // ncols)
    models = ctx.index.models
    fig = new_figure(3.2 * ncols, 0.35 * len(models) * nrows + 1.1 * nrows + 0.6)
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    for ax, row in zip(axes, rows):
        present = [m for m in models if m in row.cells]
        y = np.arange(len(present))
        best = row.best()
        ref = row.reference()
        if ref is not None:
            ax.axvline(ref[1][0], color="#888888", linewidth=0.9, linestyle="--")
        for yi, m in zip(y, present):
            v, lo, hi = row.cells[m]
            if m in row.na:  # an interval that says nothing would stretch the axis: the point alone
                lo = hi = None
            err = error_bars([v], [lo], [hi])
            ax.errorbar([v], [yi], xerr=err, fmt="o", color=ctx.colours[m], capsize=2, linewidth=1,
                        markersize=7 if m == best else 5, markeredgecolor="black" if m == best else ctx.colours[m])
        ax.set_yticks(y, [_short(m, 22) for m in present], fontsize=8)
        ax.set_ylim(-0.7, len(present) - 0.3)
        ax.invert_yaxis()
        arrow = {1: " (↑ better)", -1: " (↓ better)"}.get(row.direction, "")
        ax.set_title(_short(row.label, 30) + arrow, fontsize=9, loc="left", wrap=True)
        style_axes(ax, "x")
    for ax in axes[n:]:
        ax.set_visible(False)
    notes = "".join(f" {r.label}: {r.caveat}." for r in rows if r.caveat)
    notes += "".join(f" {r.label}, {m}: {why}." for r in rows for m, why in r.na.items())
    return ctx.sink.render(fig, "fig-headline", "Headline of each suite",
                           "Per model, each suite's headline score with its 95% interval; dashed line: chance (random "
                           "vectors' score where they ran, else the chance level; none where no chance level is known, and then no "
                           "panel marks a best); black edge: the best of "
                           "the panel among models whose interval clears chance (random vectors and lemma overlap are "
                           "references, never best). The same numbers as the ranking at the end of `compeval run`. A "
                           "suite mean's interval treats its tasks as independent." + notes)


# ---------------------------------------------------------------------------------------------- paired

def items_for(entry: Entry) -> ItemColumns | None:
    sec = section(entry.suite)
    return None if sec is None else sec.items(entry)


def paired_comparisons(index: ResultsIndex, *, n_resamples: int = 1000, n_permutations: int = 1000,
                       seed: int = 0) -> list[Comparison]:
    """For every ranked task, a paired test between each pair of adjacent leaderboard ranks."""
    out = []
    for suite, task in columns(index):
        entries = [e for e in index.entries if e.task == task]
        metric = entries[0].result.task.main_metric
        order = ranked(entries)
        for k in range(len(order) - 1):
            a, b = order[k], order[k + 1]
            out.append(_compare(suite, task, metric, a, b, k + 1, n_resamples, n_permutations, seed))
    return out


def _compare(suite, task, metric, a: Entry, b: Entry, rank_a: int, n_resamples, n_permutations, seed) -> Comparison:
    cmp = Comparison(suite=suite, task=task, metric=metric, a=a, b=b, rank_a=rank_a, result=None)
    try:
        ia, ib = items_for(a), items_for(b)
    except Exception as exc:  # unreadable predictions cost this test only
        cmp.note = f"could not read the per-item predictions ({type(exc).__name__}: {exc})"
        return cmp
    if ia is None or ib is None:
        cmp.note = "no per-item form of this score (or no predictions): interval and test not available"
        return cmp
    ka, kb = pd.Index(ia.keys), pd.Index(ib.keys)
    if not ka.is_unique or not kb.is_unique:
        cmp.note = "item keys are not unique: cannot pair the items"
        return cmp
    common = ka.intersection(kb, sort=False)
    if len(common) < 2:
        cmp.note = "the two results share no items (different task options?)"
        return cmp
    pa, pb = ka.get_indexer(common), kb.get_indexer(common)
    for name in ("reference", "labels"):
        xa, xb = getattr(ia, name), getattr(ib, name)
        if xa is not None and (xb is None or not np.array_equal(np.asarray(xa)[pa], np.asarray(xb)[pb])):
            cmp.note = f"the two results disagree on the items' {name}: not the same items"
            return cmp
    cmp.result = paired_test(
        ia.kind, ia.values[pa], ib.values[pb],
        reference=None if ia.reference is None else ia.reference[pa],
        labels=None if ia.labels is None else ia.labels[pa],
        clusters=None if ia.clusters is None else ia.clusters[pa],
        weighting=ia.weighting, n_resamples=n_resamples, n_permutations=n_permutations, seed=seed)
    full = len(common) == len(ka) == len(kb)
    if not full:
        cmp.note = f"paired on the {len(common)} items both results hold ({len(ka)} and {len(kb)})"
    stored_a, stored_b = a.main.value, b.main.value
    if full:
        # Predictions files keep 10 decimals, which turns float-noise near-ties into exact ties (a bag of
        # words gives two sentences with the same words a cosine of 1 ± 1e-16): a rank metric recomputed
        # from them may move in the 3rd-4th decimal where such ties abound; a mean may not move at all.
        off = max(abs(cmp.result.score_a - stored_a), abs(cmp.result.score_b - stored_b))
        cmp.recomputed_ok = bool(off <= RECOMPUTE_TOLERANCE[ia.kind])
        if not cmp.recomputed_ok:
            cmp.note = (f"recomputed scores {cmp.result.score_a:.4f} / {cmp.result.score_b:.4f} differ from the stored "
                        f"{stored_a:.4f} / {stored_b:.4f}")
        elif off > 1e-9:
            cmp.note = (f"recomputed within {off:.1e} of the stored score: the predictions file rounds scores to 10 "
                        "decimals, which ties float-noise near-ties")
    cmp.method = ia.note
    return cmp


def _paired_figure(ctx: BuildContext, comparisons: list[Comparison]) -> RenderedFigure:
    done = [c for c in comparisons if c.result is not None]
    fig = new_figure(12, 0.34 * len(done) + 1.5)
    ax = fig.subplots()
    y = np.arange(len(done))
    for yi, c in zip(y, done):
        r = c.result
        colour = "#0072B2" if r.significant() else "#999999"
        ax.plot([r.ci_low, r.ci_high], [yi, yi], color=colour, linewidth=2)
        ax.plot([r.difference], [yi], "o", color=colour, markersize=5)
    ax.axvline(0, color="black", linewidth=0.7)
    ax.set_yticks(y, [f"{c.a.task_name}: {_short(c.a.model)} − {_short(c.b.model)}" for c in done])
    ax.invert_yaxis()
    ax.set_xlabel("difference in main score (rank k − rank k+1), 95% paired bootstrap interval")
    ax.set_title("Paired comparisons of adjacent ranks (blue: p < 0.05)")
    style_axes(ax, "x")
    return ctx.sink.render(fig, "fig-paired", "Paired differences of adjacent ranks",
                           "Each line is the paired 95% bootstrap interval of score(rank k) − score(rank k+1) on the same "
                           "items; blue when the permutation test gives p < 0.05.")


def _short(label: str, width: int = 28) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


# ----------------------------------------------------------------------------------------- leaderboard

def _leaderboard_tables(index: ResultsIndex, comparisons: list[Comparison]) -> list[dict]:
    """One table per suite: models (and published rows) × that suite's tasks."""
    top_vs_next = {c.task: c for c in comparisons if c.rank_a == 1}
    info = main_of(index)
    tables = []
    by_suite: dict[str, list[str]] = {}
    for suite, task in columns(index):
        by_suite.setdefault(suite, []).append(task)
    for suite, tasks in by_suite.items():
        header = []
        for t in tasks:
            name, subset, metric = info[t]
            arrow = {1: "↑", -1: "↓", 0: ""}[next(e for e in index.entries if e.task == t).direction]
            header.append({"task": name, "options": _options(t, name), "metric": f"{metric} · {subset} {arrow}".strip()})
        rows = []
        for m in index.models:
            cells, any_value = [], False
            for t in tasks:
                e = index.get(m, t)
                cells.append(_score_cell(e, index, top_vs_next.get(t)))
                any_value |= e is not None
            if any_value:
                rows.append({"model": m, "published": False, "cells": cells, "title": ""})
        pub_rows: dict[str, list[Cell]] = {}
        for k, t in enumerate(tasks):
            for p in published_main(index, t):
                row = pub_rows.setdefault(p.model, [Cell("") for _ in tasks])
                row[k] = Cell(fmt(p.value), title=f"published, not computed here: {p.citation}"
                              + (f"\n{p.note}" if p.note else ""), cls="published")
        for model, cells in pub_rows.items():
            rows.append({"model": model, "published": True, "cells": cells, "title": ""})
        tables.append({"suite": suite, "id": f"leaderboard-{suite}", "header": header, "rows": rows,
                       "note": _headline_note(suite, tasks, info)})
    return tables


def _headline_note(suite: str, tasks: list[str], info: dict[str, tuple[str, str, str]]) -> str:
    """Where a column is a task's main score but the suite's headline is another subset of it (STS3k: all
    pairs here, adversarial pairs and the gap in the headline), one line saying which is which."""
    sec = section(suite)
    lines = []
    for t in tasks:
        name, subset, metric = info[t]
        other = [h for h in (sec.headlines if sec else ()) if h.task == name
                 and (h.subset or subset, h.metric or metric) != (subset, metric)]
        if other:
            heads = "; ".join(f"“{h.label}” is {h.metric or metric} on “{h.subset or subset}”" for h in other)
            lines.append(f"{name}: this column is its main score, {metric} on the “{subset}” subset; the headlines "
                         f"differ: {heads} (the figure above, and the suite's section).")
    return " ".join(lines)


def _options(slug: str, name: str) -> str:
    """``probe-has-x__n_test-100__words-school`` → ``n_test=100, words=school`` (the non-default options)."""
    rest = slug[len(name):] if slug.startswith(name) else slug
    return ", ".join(part.replace("-", "=", 1) for part in rest.split("__") if part)


def _score_cell(e: Entry | None, index: ResultsIndex, top: Comparison | None) -> Cell:
    if e is None:
        return Cell("", cls="empty")
    s = e.main
    if s is None or s.value is None:
        return Cell("–", title=e.provenance())
    from .ranking import best_entry

    entries = [x for x in index.entries if x.task == e.task]
    cls = ""
    marker = ""
    if best_entry(entries) is e:  # never a trivial reference, never one whose interval overlaps chance
        cls = "best"
        if top is not None and top.a is e and top.result is not None and not top.result.significant():
            marker = " ≈"
            cls = "best tie"
    title = e.provenance() + f"\nn = {s.n}"
    if top is not None and top.result is not None and e in (top.a, top.b):
        r = top.result
        title += f"\npaired test rank 1 vs 2: Δ = {r.difference:.4f} {fmt_ci(r.ci_low, r.ci_high, 4)}, p = {r.p_value:.3g}"
    text = f"{s.value:.3f}{marker}"
    from .ranking import NA_RATIO, meaningless_interval

    if meaningless_interval(s):  # e.g. random vectors' sts3k-types profile: [0.896, 118.870]
        return Cell(text, title=title + f"\n{NA_RATIO}: {fmt_ci(s.ci_low, s.ci_high)}", cls=cls, sub="[n/a]")
    return Cell(text, title=title, cls=cls, sub=fmt_ci(s.ci_low, s.ci_high))


# ----------------------------------------------------------------------------------------- provenance

def _provenance(index: ResultsIndex) -> list[dict]:
    out = []
    for m in index.models:
        entries = sorted((e for e in index.entries if e.model == m), key=lambda e: (e.suite, e.task))
        config = entries[0].result.model
        results = []
        for e in entries:
            r = e.result
            results.append({
                "task": e.task, "suite": e.suite, "version": r.task.version,
                "params": ", ".join(f"{k}={v}" for k, v in sorted(r.task.params.items())),
                "data": "; ".join(f"{d.source}@{(d.revision or 'local')[:12]}"
                                  + {True: " ✓", False: " ✗ hash mismatch", None: ""}[d.verified] for d in r.data)
                        or "generated",
                "seed": r.seed, "started": f"{r.started_at:%Y-%m-%d %H:%M:%S}", "seconds": f"{r.duration_seconds:.1f}",
                "n_items": r.n_items, "sha": (r.predictions_sha256 or "")[:12],
                "env": index.environments().index(r.environment) + 1,
            })
        out.append({"model": m, "config": json.dumps(config, indent=1, sort_keys=True, default=str), "results": results})
    return out


# --------------------------------------------------------------------------------------------- render

def _render(**context) -> str:
    try:
        import jinja2
    except ImportError:
        raise CompevalError("the report is rendered with jinja2: pip install jinja2") from None
    from .template import TEMPLATE

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["fmt"] = fmt
    env.filters["fmt_ci"] = fmt_ci
    env.filters["options"] = lambda c: _options(c.task, c.a.task_name)
    env.filters["pval"] = lambda p: "–" if p is None or not np.isfinite(p) else (f"{p:.3f}" if p >= 0.001 else "<0.001")
    template = env.from_string(TEMPLATE)
    index: ResultsIndex = context["index"]
    return template.render(
        csp=CSP, generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), version=__version__,
        results_dir=str(index.root), n_results=len(index.entries), models=index.models,
        environments=index.environments(),
        env_keys=list(dict.fromkeys(k for env in index.environments() for k in env)),
        not_ranked=sorted({e.task_name for e in index.entries if not e.info.ranked}),
        **context)
