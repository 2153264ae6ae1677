"""The end-of-run ranking: per model, each suite's headlines (declared with its report section) with 95%
intervals, the best marked; read from the results folder, so it shows exactly what was written.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable

import numpy as np

from .chance import CHANCE, NA_RATIO, RATIO_SPREAD, REFERENCE_FAMILIES, RankRow, meaningless_interval
from .loading import Entry, ResultsIndex
from .sections import Headline, chance_level, section, suite_order, task_order
from .tables import ranked, with_arrow

__all__ = ["CHANCE", "NA_RATIO", "RATIO_SPREAD", "REFERENCE_FAMILIES", "RankRow", "best_entry", "fmt_cell",
           "meaningless_interval", "ranked_models", "ranking", "ranking_frame"]

Z95 = 1.959963984540054


def _score(e: Entry, h: Headline) -> tuple[float, float | None, float | None] | None:
    s = e.score(h.metric or e.result.task.main_metric, h.subset or e.result.task.main_subset)
    if s is None or s.value is None or not math.isfinite(s.value):
        return None
    if meaningless_interval(s):
        return s.value, float("nan"), float("nan")
    return s.value, s.ci_low, s.ci_high


def _annotate(row: RankRow, entries: list[Entry], metric: str | None) -> RankRow:
    """Reference models, chance level and intervals not shown, from the row's entries."""
    for e in entries:
        family = str(e.result.model.get("family", "")).split(".v")[0]
        if family in REFERENCE_FAMILIES and e.model in row.cells:
            row.references[e.model] = REFERENCE_FAMILIES[family]
    for m, (_, lo, hi) in row.cells.items():
        if lo is not None and hi is not None and math.isnan(lo) and math.isnan(hi):
            row.na[m] = NA_RATIO
    if metric is not None:
        row.chance = chance_level(row.suite, metric)
    return row


def _mean(cells: list[tuple[float, float | None, float | None]]) -> tuple[float, float | None, float | None]:
    """Mean of task scores; its interval from the tasks' intervals as if the tasks were independent
    (each task's standard error taken as its interval's half-width / 1.96)."""
    value = float(np.mean([c[0] for c in cells]))
    if any(c[1] is None or c[2] is None for c in cells):
        return value, None, None
    se = math.sqrt(sum(((hi - lo) / (2 * Z95)) ** 2 for _, lo, hi in cells)) / len(cells)
    return value, value - Z95 * se, value + Z95 * se


def ranking(index: ResultsIndex, keep: Iterable[str] | None = None) -> list[RankRow]:
    """Headline rows for every suite present (in report order); ``keep`` limits to these result files."""
    # Resolved on both sides: a run reports absolute paths, a folder given as ``results`` indexes relative ones.
    paths = None if keep is None else {str(Path(p).resolve()) for p in keep}
    entries = [e for e in index.entries if paths is None or str(Path(e.path).resolve()) in paths]
    models = [m for m in index.models if any(e.model == m for e in entries)]
    rows: list[RankRow] = []
    for suite in suite_order({e.suite for e in entries}):
        mine = [e for e in entries if e.suite == suite and e.info.ranked]
        sec = section(suite)
        declared = list(sec.headlines) if sec else []
        used: set[str] = set()
        for h in declared:
            firsts = _firsts(mine, h.task)
            row = RankRow(suite, h.label + _options_shown(firsts, h.task), h.direction, caveat=h.caveat)
            for e in firsts:
                if (cell := _score(e, h)) is not None:
                    row.cells[e.model] = cell
                    if h.direction == 0:
                        row.direction = e.info.direction(h.metric or e.info.main_metric)
            if row.cells:
                metric = h.metric or firsts[0].info.main_metric
                rows.append(_annotate(row, firsts, metric))
                used.add(h.task)
        if declared and not (sec and sec.headline_rest):
            continue
        rest = [e for e in mine if e.task_name not in used]
        if sec and sec.headline_each:
            for name in task_order(suite, {e.task_name for e in rest}):
                rows += _summaries(suite, [e for e in rest if e.task_name == name], models)
        else:
            rows += _summaries(suite, rest, models)
    return rows


def _options_shown(entries: list[Entry], task_name: str) -> str:
    """`` (norm=center)`` when every result a headline row shows ran with the same non-default options (read
    from the file name, ``sts3k__norm-center``), so that the row is never read as the default protocol's."""
    slugs = {e.task for e in entries}
    if len(slugs) != 1 or (slug := slugs.pop()) == task_name or not slug.startswith(task_name + "__"):
        return ""
    parts = slug[len(task_name) + 2:].split("__")
    if not all("-" in part for part in parts):  # a user task's file name ends in its declaration's digest
        return ""
    return " (" + ",".join(part.replace("-", "=", 1) for part in parts) + ")"


def _firsts(entries: list[Entry], task_name: str) -> list[Entry]:
    """Per model, its result of ``task_name``, preferring the default options (slug == name)."""
    best: dict[str, Entry] = {}
    for e in sorted((e for e in entries if e.task_name == task_name), key=lambda e: (e.task != task_name, e.task)):
        best.setdefault(e.model, e)
    return list(best.values())


def _summaries(suite: str, entries: list[Entry], models: list[str]) -> list[RankRow]:
    """One row per (main metric, direction) among a suite's other ranked tasks: the task itself when
    alone, else the mean over the tasks every model has (one result per model and task name)."""
    groups: dict[tuple[str, int], set[str]] = {}
    for e in entries:
        groups.setdefault((e.info.main_metric, e.direction), set()).add(e.task_name)
    rows = []
    present = [m for m in models if any(e.model == m for e in entries)]
    for (metric, direction), names in groups.items():
        if direction == 0:
            continue
        per_task = {t: {e.model: e for e in _firsts(entries, t)} for t in names}
        common = [t for t in task_order(suite, names) if all(m in per_task[t] for m in present)]
        if not common:
            continue
        single = len(common) == 1
        shown = _options_shown(list(per_task[common[0]].values()), common[0]) if single else ""
        row = RankRow(suite, f"{common[0]}{shown} {metric}" if single else f"{suite}: mean {metric}", direction,
                      note="" if single else f"mean of {len(common)} tasks")
        for m in present:
            cells = [c for t in common if (c := _score(per_task[t][m], Headline("", t))) is not None]
            if len(cells) == len(common):
                row.cells[m] = cells[0] if single else _mean(cells)
        if row.cells:
            rows.append(_annotate(row, [e for t in common for e in per_task[t].values()], metric))
    return rows


def best_entry(entries: list[Entry]) -> Entry | None:
    """Of one task's results, the one to mark best on the leaderboard: the best main score among those that are
    not trivial references and whose interval clears chance (``RankRow.best``); None when none does."""
    order = ranked(entries)
    if len(order) < 2:
        return None
    row = RankRow("", "", order[0].direction)
    for e in order:
        if e.model not in row.cells and (cell := _score(e, Headline("", e.task_name))) is not None:
            row.cells[e.model] = cell
    best = _annotate(row, order, order[0].info.main_metric).best()
    return next((e for e in order if e.model == best), None)


def ranked_models(index: ResultsIndex, rows: list[RankRow]) -> list[str]:
    """The models with a cell in any row, in the index's order: the ranking's columns."""
    return [m for m in index.models if any(m in r.cells for r in rows)]


def fmt_cell(cell: tuple[float, float | None, float | None] | None, digits: int = 3) -> str:
    if cell is None:
        return "–"
    v, lo, hi = cell
    if lo is not None and hi is not None and math.isnan(lo) and math.isnan(hi):
        return f"{v:.{digits}f} [n/a]"  # an interval that says nothing (``meaningless_interval``)
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{v:.{digits}f}"
    return f"{v:.{digits}f} [{lo:.{digits - 1}f}, {hi:.{digits - 1}f}]"


def ranking_frame(results_dir, keep: Iterable[str] | None = None):
    """The ranking as a DataFrame: a row per headline, ``chance`` (what a model must clear), a column per model
    (``value [low, high]``) and ``best`` ("" when no model clears it)."""
    import pandas as pd

    index = results_dir if isinstance(results_dir, ResultsIndex) else ResultsIndex(results_dir)
    rows = ranking(index, keep)
    models = ranked_models(index, rows)
    frame = pd.DataFrame([[fmt_cell(r.reference()[1]) if r.reference() else "–"]
                          + [fmt_cell(r.cells.get(m)) for m in models] + [r.best() or ""] for r in rows],
                         columns=["chance", *models, "best"],
                         index=[with_arrow(r.label, r.direction) for r in rows])
    frame.index.name = "headline"
    return frame
