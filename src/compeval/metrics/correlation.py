"""Correlations that work on 1-D arrays and, row-wise, on 2-D bootstrap matrices."""
from __future__ import annotations

import numpy as np
from ..lazy import lazy_module

stats = lazy_module("scipy.stats")


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


def _resampled_ranks(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Average ranks of each row of ``x[idx]`` by counting, O(B·n) instead of sorting every row.

    A resample only holds values of ``x``, so each row is ranked on the dense code grid of ``x``:
    rank = (values below) + (ties + 1) / 2, exactly ``scipy.stats.rankdata(method="average")``.
    """
    _, codes1d = np.unique(x, return_inverse=True)
    k = int(codes1d.max()) + 1
    codes = codes1d[idx]
    b = idx.shape[0]
    flat = (codes + (np.arange(b, dtype=np.int64)[:, None] * k)).ravel()
    counts = np.bincount(flat, minlength=b * k).reshape(b, k).astype(np.float64)
    below = np.cumsum(counts, axis=1) - counts
    avg = below + (counts + 1) / 2
    return np.take_along_axis(avg, codes, axis=1)


def spearman_resampled(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Spearman ρ of every bootstrap resample ``idx`` (B × n) of the pairs (x, y)."""
    return pearson_rows(_resampled_ranks(np.asarray(x), idx), _resampled_ranks(np.asarray(y), idx))
