"""Macro (authors') and micro averages per subset, with a cluster bootstrap over nouns.

Every adjective meets the same 12 nouns, so one noun's cases are not independent draws: the interval
resamples nouns (Davison & Hinkley 1997, §3.8); with 11–12 nouns it is coarse and somewhat narrow."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...metrics.bootstrap import bootstrap_ci
from ...results.schema import Score
from ...lazy import lazy_module

pd = lazy_module("pandas")

LEVEL = 0.95


def _macro(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return (sums / counts).mean(axis=-1)


def _micro(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return sums.sum(axis=-1) / counts.sum(axis=-1)


def aggregate(
    values: np.ndarray,
    subsets: np.ndarray,
    nouns: np.ndarray,
    metric: str,
    order: Sequence[str],
    *,
    seed: int,
    n_resamples: int = 1000,
) -> list[Score]:
    """``{metric}_macro`` and ``{metric}_micro`` per subset in ``order`` with cases (NaN cases left out).

    ``nouns`` holds each case's noun index, the authors' averaging unit."""
    values = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(values)
    values, subsets, nouns = values[keep], np.asarray(subsets, dtype=object)[keep], np.asarray(nouns)[keep]
    codes, found = pd.factorize(subsets)  # hash-based: fast on 240k strings
    order = [s for s in order if s in set(found.tolist())]
    if not order:
        return []
    k_of = {s: i for i, s in enumerate(order)}
    key = np.array([k_of.get(s, -1) for s in found.tolist()], dtype=np.int64)[codes]
    inside = key >= 0
    values, key, nouns = values[inside], key[inside], nouns[inside]
    K, G = len(order), int(nouns.max()) + 1
    cell = key * G + nouns
    counts = np.bincount(cell, minlength=K * G).reshape(K, G).astype(np.float64)
    sums = np.bincount(cell, weights=values, minlength=K * G).reshape(K, G)

    def num(x) -> float | None:
        return None if x is None or not np.isfinite(x) else float(x)

    scores = []
    for k, subset in enumerate(order):
        present = counts[k] > 0
        s, c = sums[k, present], counts[k, present]
        details = {"n_nouns": int(present.sum())}
        for name, stat in (("macro", _macro), ("micro", _micro)):
            low, high, _ = bootstrap_ci(stat, s, c, n_resamples=n_resamples, seed=seed, level=LEVEL)
            scores.append(Score(subset=subset, metric=f"{metric}_{name}", value=num(stat(s, c)), ci_low=num(low),
                                ci_high=num(high), n=int(c.sum()), details=details))
    return scores


def bootstrap_note(n_resamples: int, seed: int) -> dict:
    return {"method": "percentile, nouns resampled with replacement (cluster bootstrap)", "level": LEVEL,
            "n_resamples": n_resamples, "seed": seed}
