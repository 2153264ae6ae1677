"""What a suite section is: figures and tables from one suite's results, plus the per-item columns that let
the report recompute the suite's main score for paired tests (``register_section``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..figures import FigureSink, RenderedFigure, model_colours
from ..loading import Entry, ResultsIndex


@dataclass
class Cell:
    text: str
    title: str = ""
    cls: str = ""
    sub: str = ""  # a second, smaller line (the interval)


@dataclass
class Table:
    id: str
    caption: str
    columns: list[str]
    rows: list[list[Cell]]
    note: str = ""
    #: the papers' rows for the same columns, shown below the table behind the toggle the leaderboard uses
    published_rows: list[list[Cell]] = field(default_factory=list)


@dataclass
class Section:
    id: str
    suite: str
    title: str
    intro: str
    figures: list[RenderedFigure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class ItemColumns:
    """Per-item inputs of a main score for ``metrics.paired.paired_test``, which joins two models on ``keys``."""

    kind: str
    keys: np.ndarray
    values: np.ndarray
    reference: np.ndarray | None = None
    labels: np.ndarray | None = None
    clusters: np.ndarray | None = None
    weighting: str = "micro"
    note: str = ""


@dataclass
class BuildContext:
    index: ResultsIndex
    sink: FigureSink

    @property
    def colours(self) -> dict[str, str]:
        return model_colours(self.index.models)


def fmt(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "–"
    return f"{x:.{digits}f}"


def fmt_ci(lo, hi, digits: int = 3) -> str:
    if lo is None or hi is None:
        return ""
    return f"[{fmt(lo, digits)}, {fmt(hi, digits)}]"


def unique_keys(frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """Item keys from columns, made unique by the occurrence number of any repeated combination."""
    base = frame[columns].astype(str).agg("\x1f".join, axis=1) if len(columns) > 1 else frame[columns[0]].astype(str)
    occurrence = base.groupby(base).cumcount().astype(str)
    return (base + "\x1e" + occurrence).to_numpy()


def error_bars(values, lows, highs) -> np.ndarray:
    """Asymmetric error-bar lengths (2 × n) from intervals; missing intervals draw none."""
    v = np.asarray([np.nan if x is None else x for x in values], dtype=float)
    lo = np.asarray([np.nan if x is None else x for x in lows], dtype=float)
    hi = np.asarray([np.nan if x is None else x for x in highs], dtype=float)
    err = np.vstack([v - lo, hi - v])
    return np.where(np.isfinite(err), np.clip(err, 0, None), 0.0)


def bar_data(scores) -> tuple[list[float], np.ndarray]:
    """Heights (NaN where a score or its value is absent) and asymmetric error bars of ``scores``."""
    trips = [(None, None, None) if s is None or s.value is None else (s.value, s.ci_low, s.ci_high) for s in scores]
    return [np.nan if v is None else v for v, _, _ in trips], error_bars(*zip(*trips))
