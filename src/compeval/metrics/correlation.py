"""Correlations that work on 1-D arrays and, row-wise, on 2-D bootstrap matrices."""
from __future__ import annotations

import numpy as np
from scipy import stats


def pearson_rows(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    xm = x - x.mean(axis=axis, keepdims=True)
    ym = y - y.mean(axis=axis, keepdims=True)
    num = (xm * ym).sum(axis=axis)
    den = np.sqrt((xm * xm).sum(axis=axis) * (ym * ym).sum(axis=axis))
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / den


def spearman_rows(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Spearman ρ with average ranks for ties (as ``scipy.stats.spearmanr``), along ``axis``."""
    return pearson_rows(stats.rankdata(x, axis=axis), stats.rankdata(y, axis=axis), axis=axis)


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    return float(spearman_rows(np.asarray(x), np.asarray(y)))


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    return float(pearson_rows(np.asarray(x), np.asarray(y)))
