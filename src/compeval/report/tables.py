"""The leaderboard as data (models × tasks main scores with 95% intervals) and its markdown, CSV and LaTeX
exports.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import CompevalError
from ..names import markdown
from ..results.schema import PublishedScore
from .loading import Entry, ResultsIndex
from .sections import section, suite_order, task_order

STATS = ("value", "ci_low", "ci_high")


def columns(index: ResultsIndex) -> list[tuple[str, str]]:
    """(suite, task slug) of every ranked task (its results say so), in report order."""
    out = []
    by_suite: dict[str, set[str]] = {}
    for e in index.entries:
        if e.info.ranked:
            by_suite.setdefault(e.suite, set()).add(e.task)
    for suite in suite_order(set(by_suite)):
        out += [(suite, t) for t in task_order(suite, by_suite[suite])]
    return out


@dataclass(frozen=True)
class Column:
    """One leaderboard column: a task's score on a subset and metric (its main ones, or a suite's headline
    such as STS3k's adversarial Spearman), and which way is better."""

    suite: str
    label: str  # the task slug, or ``slug:subset`` for a headline other than the main score
    task: str  # slug
    task_name: str
    subset: str
    metric: str
    direction: int


def leaderboard_columns(index: ResultsIndex) -> list[Column]:
    """Every ranked task's main score, except that a task the suite sums up with headlines (STS3k: adversarial
    Spearman and the non − adv gap) has those columns instead."""
    out = []
    for suite, slug in columns(index):
        entry = next(e for e in index.entries if e.task == slug)
        sec = section(suite)
        heads = [h for h in (sec.headlines if sec else ()) if h.task == entry.task_name]  # every option set alike
        if not heads:
            out.append(Column(suite, slug, slug, entry.task_name, entry.info.main_subset, entry.info.main_metric,
                              entry.direction))
            continue
        for h in heads:
            subset, metric = h.subset or entry.info.main_subset, h.metric or entry.info.main_metric
            label = slug if (subset, metric) == (entry.info.main_subset, entry.info.main_metric) else f"{slug}:{subset}"
            out.append(Column(suite, label, slug, entry.task_name, subset, metric,
                              h.direction or entry.info.direction(metric)))
    return out


def leaderboard_frame(results_dir: Path | str | ResultsIndex, include_published: bool = False,
                      overall: bool = False) -> pd.DataFrame:
    """Models × columns ``(suite, column, stat)``, stat in value / ci_low / ci_high; a column is a task slug or
    a headline (``sts3k:adv``). ``include_published`` adds ``"<model> [published]"`` rows without interval;
    ``overall`` adds ``("overall", "mean rank", "value")``: each model's mean rank over its columns (1 = best)."""
    index = results_dir if isinstance(results_dir, ResultsIndex) else ResultsIndex(results_dir)
    cols = leaderboard_columns(index)
    data: dict[tuple[str, str, str], dict[str, float]] = {}
    for c in cols:
        for stat in STATS:
            data[(c.suite, c.label, stat)] = {}
        for e in index.entries:
            if e.task != c.task:
                continue
            s = e.score(c.metric, c.subset)
            for stat in STATS:
                v = None if s is None else getattr(s, stat)
                data[(c.suite, c.label, stat)][e.model] = np.nan if v is None else v
    rows = list(index.models)
    if overall and any(c.direction for c in cols):
        ranks = pd.DataFrame({c.label: pd.Series(data[(c.suite, c.label, "value")], dtype=float)
                              .mul(-c.direction).rank(method="min") for c in cols if c.direction}, index=rows)
        data[("overall", "mean rank", "value")] = ranks.mean(axis=1, skipna=True).to_dict()
    if include_published:
        for c in cols:
            for p in index.published(c.task_name, c.subset, c.metric):
                label = p.model + PUBLISHED_SUFFIX
                data[(c.suite, c.label, "value")][label] = p.value
                if label not in rows:
                    rows.append(label)
    frame = pd.DataFrame(data, index=rows, dtype=float)
    frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["suite", "task", "stat"])
    frame.index.name = "model"
    return frame


PUBLISHED_SUFFIX = " [published]"


def is_published(label) -> bool:
    """A leaderboard row transcribed from a paper (``"<model> [published]"``), not computed here."""
    return str(label).endswith(PUBLISHED_SUFFIX)


def leaderboard_directions(cols: list[Column]) -> dict[tuple[str, str], int]:
    """(suite, column) → +1 higher is better, −1 lower; the overall mean rank is lower-is-better."""
    return {(c.suite, c.label): c.direction for c in cols} | {("overall", "mean rank"): -1}


def best_rows(frame: pd.DataFrame, directions: dict[tuple[str, str], int],
              index: ResultsIndex | None = None) -> dict[tuple[str, str], str]:
    """(suite, column) → the computed model (not a published row) with the best value; given the results'
    ``index``, never a trivial reference nor a model whose interval overlaps chance (``ranking.RankRow.best``)."""
    from .chance import REFERENCE_FAMILIES, RankRow
    from .sections import chance_level

    metric = {(c.suite, c.label): c.metric for c in leaderboard_columns(index)} if index is not None else {}
    family = {e.model: str(e.result.model.get("family", "")).split(".v")[0] for e in index.entries} \
        if index is not None else {}
    best = {}
    computed = [m for m in frame.index if not is_published(m)]
    for key, sign in directions.items():
        if sign == 0 or (*key, "value") not in frame.columns:
            continue
        values = frame.loc[computed, (*key, "value")].dropna()
        if len(values) < 2:
            continue
        if index is None:
            best[key] = (values * sign).idxmax()
            continue

        def stat(m, name):
            v = frame.loc[m, (*key, name)] if (*key, name) in frame.columns else np.nan
            return None if v != v else float(v)

        row = RankRow(key[0], key[1], sign, chance=chance_level(key[0], metric.get(key, "")),
                      cells={m: (float(v), stat(m, "ci_low"), stat(m, "ci_high")) for m, v in values.items()},
                      references={m: REFERENCE_FAMILIES[family[m]] for m in values.index
                                  if family.get(m) in REFERENCE_FAMILIES})
        if (pick := row.best()) is not None:
            best[key] = pick
    return best


def main_of(index: ResultsIndex) -> dict[str, tuple[str, str, str]]:
    """Task slug → (task name, main subset, main metric): what a published row must match."""
    return {e.task: (e.task_name, e.result.task.main_subset, e.result.task.main_metric) for e in index.entries}


def published_main(index: ResultsIndex, slug: str) -> list[PublishedScore]:
    """Published figures on a leaderboard column's main subset and metric, as the task's results carry them."""
    entry = next(e for e in index.entries if e.task == slug)
    return index.published(entry.task_name, entry.info.main_subset, entry.info.main_metric)


FORMATS = ("markdown", "csv", "json", "latex")


def leaderboard_text(results_dir: Path | str, fmt: str = "markdown", include_published: bool = True,
                     digits: int = 3) -> str:
    """The leaderboard in markdown or LaTeX (``value [low, high]`` cells, the best of each column bold), or
    as data: CSV with numeric ``value`` / ``ci_low`` / ``ci_high`` columns apart, JSON one record per cell."""
    if fmt not in FORMATS:
        raise CompevalError(f"unknown leaderboard format {fmt!r}; choose markdown, csv, json or latex")
    index = results_dir if isinstance(results_dir, ResultsIndex) else ResultsIndex(results_dir)
    frame = leaderboard_frame(index, include_published=include_published, overall=True)
    cols = leaderboard_columns(index)
    directions = leaderboard_directions(cols)
    if fmt == "csv":
        flat = frame.copy()
        flat.columns = [f"{s}/{t}" if s == "overall" else f"{s}/{t}/{stat}" for s, t, stat in flat.columns]
        flat.insert(0, "published", [is_published(m) for m in flat.index])
        return flat.to_csv()
    if fmt == "json":
        return json.dumps(leaderboard_records(frame, cols), indent=1) + "\n"
    best = best_rows(frame, directions, index)
    cells = pd.DataFrame(index=frame.index)
    keys = list(dict.fromkeys((s, t) for s, t, _ in frame.columns))
    for suite, task in keys:
        get = (lambda stat: frame[(suite, task, stat)] if (suite, task, stat) in frame.columns
               else pd.Series(np.nan, index=frame.index))
        v, lo, hi = get("value"), get("ci_low"), get("ci_high")
        texts = [_cell(a, b, c, digits) for a, b, c in zip(v, lo, hi)]
        mark = best.get((suite, task))
        bold = (lambda t: f"**{t}**") if fmt == "markdown" else (lambda t: f"BOLD{{{t}}}")
        cells[(suite, task)] = [bold(t) if m == mark and t else t for m, t in zip(frame.index, texts)]
    cells.columns = pd.MultiIndex.from_tuples(cells.columns, names=["suite", "task"])
    if fmt == "markdown":
        header = ["model"] + [with_arrow(f"{t} ({s})", directions.get((s, t), 0))
                              for s, t in cells.columns]
        lines = ["| " + " | ".join(map(markdown, header)) + " |", "|" + "---|" * len(header)]
        for model, row in cells.iterrows():  # the cells are compeval's numbers, bold marked
            lines.append("| " + " | ".join([markdown(model), *row.tolist()]) + " |")
        return "\n".join(lines) + "\n"
    cells.index.name = None  # else pandas adds a row holding only "model"
    tex = cells.to_latex(escape=True, multicolumn_format="c", caption="Main scores with 95\\% intervals; "
                         "the best computed model of each column in bold", label="tab:compeval-leaderboard")
    return re.sub(r"BOLD\\\{(.*?)\\\}", r"\\textbf{\1}", tex)


ARROWS = {1: "↑", -1: "↓", 0: ""}


def with_arrow(text: str, direction: int) -> str:
    """``text ↑`` (higher is better), ``text ↓`` (lower), or the text alone."""
    return f"{text} {ARROWS[direction]}" if direction else text


def leaderboard_records(frame: pd.DataFrame, cols: list[Column]) -> list[dict]:
    """One record per model × column with numbers (None where absent), for JSON."""
    def num(x):
        return None if x is None or not np.isfinite(x) else float(x)

    out = []
    for model in frame.index:
        published = is_published(model)
        for c in cols:
            v = num(frame.loc[model, (c.suite, c.label, "value")])
            if v is None:
                continue
            out.append({"model": str(model), "published": published, "suite": c.suite, "column": c.label,
                        "task": c.task, "subset": c.subset, "metric": c.metric, "direction": c.direction,
                        "value": v, "ci_low": num(frame.loc[model, (c.suite, c.label, "ci_low")]),
                        "ci_high": num(frame.loc[model, (c.suite, c.label, "ci_high")])})
        if ("overall", "mean rank", "value") in frame.columns and not published:
            r = num(frame.loc[model, ("overall", "mean rank", "value")])
            if r is not None:
                out.append({"model": str(model), "published": False, "suite": "overall", "column": "mean rank",
                            "task": None, "subset": None, "metric": "mean rank", "direction": -1, "value": r,
                            "ci_low": None, "ci_high": None})
    return out


def _cell(v, lo, hi, digits: int) -> str:
    if not np.isfinite(v):
        return ""
    if np.isfinite(lo) and np.isfinite(hi):
        return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
    return f"{v:.{digits}f}"


def rows_latex(frame: pd.DataFrame) -> str:
    """``compeval results --format latex``: the tidy rows as a LaTeX tabular (booktabs rules)."""
    try:
        return frame.to_latex(index=False, escape=True, float_format="%.4f", na_rep="", longtable=len(frame) > 40)
    except ImportError as exc:  # pandas renders LaTeX through jinja2
        raise CompevalError(f"LaTeX export needs jinja2 ({exc}); pip install jinja2") from None


def ranked(entries: list[Entry]) -> list[Entry]:
    """Entries of one task with a finite main score, best first (by the direction their results record for
    the main metric); [] when it has none."""
    sign = entries[0].direction if entries else 0
    if sign == 0:
        return []
    good = [e for e in entries if e.main is not None and e.main.value is not None and np.isfinite(e.main.value)]
    return sorted(good, key=lambda e: (-sign * e.main.value, e.model))
