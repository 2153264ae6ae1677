"""The leaderboard as data: models × tasks main scores with 95% intervals, and its text exports.

``leaderboard_frame`` is the Python face (a DataFrame); ``leaderboard_text`` renders it as markdown,
CSV or LaTeX for papers (``compeval results DIR --leaderboard --format latex``); ``rows_latex``
renders the tidy rows of ``compeval results`` as LaTeX.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import CompevalError
from ..results.schema import PublishedScore
from .loading import Entry, ResultsIndex
from .sections import suite_order, task_order

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


def leaderboard_frame(results_dir: Path | str | ResultsIndex, include_published: bool = False) -> pd.DataFrame:
    """Models × tasks main scores: columns ``(suite, task, stat)`` with stat in value / ci_low / ci_high.

    With ``include_published``, published reference rows (from the method specs) are appended with the
    label ``"<model> [published]"`` and no interval; they are not computed by compeval.
    """
    index = results_dir if isinstance(results_dir, ResultsIndex) else ResultsIndex(results_dir)
    cols = columns(index)
    data: dict[tuple[str, str, str], dict[str, float]] = {}
    for suite, task in cols:
        for stat in STATS:
            data[(suite, task, stat)] = {}
    for e in index.entries:
        key = (e.suite, e.task)
        if key not in cols:
            continue
        s = e.main
        for stat in STATS:
            v = None if s is None else getattr(s, stat)
            data[(*key, stat)][e.model] = np.nan if v is None else v
    rows = list(index.models)
    if include_published:
        for suite, task in cols:
            for p in published_main(index, task):
                label = f"{p.model} [published]"
                data[(suite, task, "value")][label] = p.value
                if label not in rows:
                    rows.append(label)
    frame = pd.DataFrame(data, index=rows, dtype=float)
    frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["suite", "task", "stat"])
    frame.index.name = "model"
    return frame


def main_of(index: ResultsIndex) -> dict[str, tuple[str, str, str]]:
    """Task slug → (task name, main subset, main metric): what a published row must match."""
    return {e.task: (e.task_name, e.result.task.main_subset, e.result.task.main_metric) for e in index.entries}


def published_main(index: ResultsIndex, slug: str) -> list[PublishedScore]:
    """Published figures on a leaderboard column's main subset and metric, as the task's results carry them."""
    entry = next(e for e in index.entries if e.task == slug)
    return index.published(entry.task_name, entry.info.main_subset, entry.info.main_metric)


def leaderboard_text(results_dir: Path | str, fmt: str = "markdown", include_published: bool = True,
                     digits: int = 3) -> str:
    """The leaderboard as ``value [low, high]`` cells in markdown, csv or latex."""
    frame = leaderboard_frame(results_dir, include_published=include_published)
    cells = pd.DataFrame(index=frame.index)
    for suite, task in dict.fromkeys((s, t) for s, t, _ in frame.columns):
        v, lo, hi = (frame[(suite, task, stat)] for stat in STATS)
        cells[(suite, task)] = [_cell(a, b, c, digits) for a, b, c in zip(v, lo, hi)]
    cells.columns = pd.MultiIndex.from_tuples(cells.columns, names=["suite", "task"])
    if fmt == "csv":
        flat = cells.copy()
        flat.columns = [f"{s}/{t}" for s, t in flat.columns]
        return flat.to_csv()
    if fmt == "markdown":
        header = ["model"] + [f"{t} ({s})" for s, t in cells.columns]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for model, row in cells.iterrows():
            lines.append("| " + " | ".join([str(model), *row.tolist()]) + " |")
        return "\n".join(lines) + "\n"
    if fmt == "latex":
        cells.index.name = None  # else pandas adds a row holding only "model"
        return cells.to_latex(escape=True, multicolumn_format="c", caption="Main scores with 95\\% intervals",
                              label="tab:compeval-leaderboard")
    raise CompevalError(f"unknown leaderboard format {fmt!r}; choose markdown, csv or latex")


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
