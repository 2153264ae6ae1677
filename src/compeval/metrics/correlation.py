"""Correlations on 1-D arrays and, row-wise, on 2-D bootstrap matrices. Pearson follows
``scipy.stats.pearsonr``, rows scaled by a power of two first so values near 1e160 or 1e-165 neither overflow
nor underflow; NaN input (or infinite, for Pearson) is a ``DataError``. Spearman ranks at ``ties``' precision."""
from __future__ import annotations

import numpy as np
from ..lazy import lazy_module

stats = lazy_module("scipy.stats")

from ..errors import DataError
from .ties import at_rank_precision


def _finite(name: str, values: np.ndarray, what: str = "NaN or infinite") -> np.ndarray:
    bad = np.isnan(values) if what == "NaN" else ~np.isfinite(values)
    if bad.any():
        raise DataError(f"{name}: {int(bad.sum())} of the values are {what}; a correlation needs "
                        f"{'ordered' if what == 'NaN' else 'finite'} values (drop or replace the missing ones first)")
    return values


def _power_of_two_scaled(x: np.ndarray) -> np.ndarray:
    """Each row (last axis) divided by 2**e, where 2**(e-1) <= max |x| < 2**e: exact, and the row's sum cannot
    overflow."""
    _, exponent = np.frexp(np.max(np.abs(x), axis=-1, keepdims=True))
    return np.ldexp(x, -exponent)


def _constant(x: np.ndarray) -> np.ndarray:
    """Rows (last axis) whose values are all equal at the rank precision of ``ties``: float noise around one
    value (an averaging model's cosines of word-order swaps) correlates with nothing, so Pearson over it is
    undefined, as Spearman's ties make it."""
    rounded = at_rank_precision(x)
    return np.all(rounded == rounded[..., :1], axis=-1)


def pearson_rows(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Pearson r along ``axis`` (NaN where a row is constant at the rank precision), computed as
    ``scipy.stats.pearsonr``."""
    x = np.moveaxis(_finite("pearson", np.asarray(x, dtype=np.float64)), axis, -1)
    y = np.moveaxis(_finite("pearson", np.asarray(y, dtype=np.float64)), axis, -1)
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"pearson: {x.shape[-1]} values against {y.shape[-1]}")
    constant = _constant(x) | _constant(y)
    x, y = _power_of_two_scaled(x), _power_of_two_scaled(y)
    xm = x - x.mean(axis=-1, keepdims=True)
    ym = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        xmax = np.max(np.abs(xm), axis=-1, keepdims=True)
        ymax = np.max(np.abs(ym), axis=-1, keepdims=True)
        normx = xmax * np.linalg.vector_norm(xm / xmax, axis=-1, keepdims=True)
        normy = ymax * np.linalg.vector_norm(ym / ymax, axis=-1, keepdims=True)
        r = np.clip(np.vecdot(xm / normx, ym / normy, axis=-1), -1.0, 1.0)
    if x.shape[-1] == 2:  # two points lie on a line: exactly ±1
        r = np.round(r)
    return np.where(constant, np.nan, r)


def spearman_rows(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Spearman ρ with average ranks for ties (as ``scipy.stats.spearmanr``), along ``axis``; values equal at
    the rank precision (``ties.RANK_BITS``) are ties."""
    x = _finite("spearman", np.asarray(x, dtype=np.float64), "NaN")  # ±inf have a rank
    y = _finite("spearman", np.asarray(y, dtype=np.float64), "NaN")
    return pearson_rows(stats.rankdata(at_rank_precision(x), axis=axis),
                        stats.rankdata(at_rank_precision(y), axis=axis), axis=axis)


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    return float(spearman_rows(np.asarray(x), np.asarray(y)))


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    return float(pearson_rows(np.asarray(x), np.asarray(y)))


def _resampled_ranks(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Average ranks of each row of ``x[idx]`` by counting on the dense code grid of ``x`` (a resample
    holds only its values): O(B·n) instead of sorting every row, exactly ``rankdata(method="average")``."""
    _, codes1d = np.unique(at_rank_precision(_finite("spearman", np.asarray(x, dtype=np.float64), "NaN")),
                           return_inverse=True)
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
