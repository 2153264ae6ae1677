"""Bootstrap intervals, vectorised: one (B × n) index matrix, statistics computed along axis 1.

Percentile intervals (not BCa: BCa needs a jackknife that is O(n²) on 10k-pair sets). The number of
resamples and the seed are recorded with every interval.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from .. import seeds

DEFAULT_RESAMPLES = 1000
#: Most resamples any option asks for (task options, ``compeval report --resamples``): at 100,000 an interval
#: over 10,000 items still takes seconds, and the third digit no longer moves.
MAX_RESAMPLES = 100_000
#: Fewest resamples behind a 95% percentile interval (task options ``bootstrap``/``n_resamples``, the report's
#: ``--resamples``). The smallest and largest of B resamples enclose on average (B − 1)/(B + 1) of the
#: bootstrap distribution, which first reaches 95% at B = 39: below that the "95% interval" cannot reach
#: its own tails (at B = 1 it is one resample and may exclude its estimate). 40 is that bound, rounded.
MIN_RESAMPLES = 40


def resample_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    rng = seeds.rng(seed, "bootstrap")
    return rng.integers(0, n, size=(n_resamples, n), dtype=np.int64 if n > 2**31 else np.int32)


def bootstrap_ci(
    statistic: Callable[..., np.ndarray],
    *arrays: np.ndarray,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    level: float = 0.95,
    indices: np.ndarray | None = None,
) -> tuple[float, float, np.ndarray]:
    """Percentile interval of ``statistic`` (2-D in, last axis reduced) over paired resamples of ``arrays``."""
    arrays = tuple(np.asarray(a) for a in arrays)
    n = len(arrays[0])
    if n < 2 or n_resamples <= 0:
        return float("nan"), float("nan"), np.array([])
    idx = resample_indices(n, n_resamples, seed) if indices is None else indices
    dist = np.asarray(statistic(*(a[idx] for a in arrays)), dtype=np.float64)
    low, high = percentile_interval(dist, level)
    return low, high, dist


def percentile_interval(dist: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of a bootstrap distribution, ignoring non-finite resamples."""
    finite = np.asarray(dist, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return float("nan"), float("nan")
    alpha = (1 - level) / 2
    low, high = np.quantile(finite, [alpha, 1 - alpha])
    return float(low), float(high)


def mean_ci(values: np.ndarray, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """Interval of a mean (accuracy, consistency rate) by bootstrap."""
    low, high, _ = bootstrap_ci(lambda v: v.mean(axis=-1), np.asarray(values, dtype=np.float64),
                                n_resamples=n_resamples, seed=seed)
    return low, high
