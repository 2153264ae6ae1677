"""Macro (authors') and micro averages per subset, with a noun-stratified bootstrap.

The authors average per noun within each type configuration and then take the unweighted mean over
nouns (macro); the micro average pools all cases. Cases are resampled with replacement within each
noun (stratified, as the design fixes the cases per noun), 95% percentile intervals.

Written here rather than with ``compeval.metrics.bootstrap_ci`` because that one materialises a
(resamples × n) index matrix: test 2 has 240k cases, which would be ~1 GB. For 0/1 outcomes the
count of successes in a with-replacement resample of a stratum of m cases with rate p is exactly
Binomial(m, p), so binary measures draw (resamples × subsets × nouns) binomials; continuous measures
resample indices one (subset, noun) cell at a time (cells hold at most a few thousand cases).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ...results.schema import Score

LEVEL = 0.95


def _percentile(dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1 - LEVEL) / 2
    with np.errstate(all="ignore"):
        low, high = np.nanquantile(dist, [alpha, 1 - alpha], axis=0)
    return low, high


def _nanmean_rows(x: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Mean over the last axis of cells that have cases (absent nouns do not count)."""
    with np.errstate(invalid="ignore"):
        return np.where(present, x, 0).sum(-1) / present.sum(-1)


def aggregate(
    values: np.ndarray,
    subsets: np.ndarray,
    nouns: np.ndarray,
    metric: str,
    order: Sequence[str],
    *,
    rng: np.random.Generator,
    n_resamples: int = 1000,
) -> list[Score]:
    """Scores ``{metric}_macro`` and ``{metric}_micro`` for each subset in ``order`` that has cases.

    ``values`` are per-case numbers (bool or float; NaN cases are left out), ``subsets`` the subset
    name of each case, ``nouns`` the noun index that is the authors' averaging unit.
    """
    values = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(values)
    values, subsets, nouns = values[keep], np.asarray(subsets)[keep], np.asarray(nouns)[keep]
    codes, found = pd.factorize(np.asarray(subsets, dtype=object))  # hash-based: fast on 240k strings
    order = [s for s in order if s in set(found.tolist())]
    if not order:
        return []
    k_of = {s: i for i, s in enumerate(order)}
    key = np.array([k_of.get(s, -1) for s in found.tolist()], dtype=np.int64)[codes]
    inside = key >= 0
    values, key, nouns = values[inside], key[inside], nouns[inside]
    K, G = len(order), int(nouns.max()) + 1
    cell = key * G + nouns
    counts = np.bincount(cell, minlength=K * G).reshape(K, G)
    sums = np.bincount(cell, weights=values, minlength=K * G).reshape(K, G)
    present = counts > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        cell_mean = sums / counts
    macro = _nanmean_rows(cell_mean, present)
    micro = sums.sum(1) / counts.sum(1)

    binary = bool(np.isin(values, (0.0, 1.0)).all())
    if n_resamples > 0:
        if binary:
            with np.errstate(invalid="ignore"):
                rate = np.where(present, cell_mean, 0.0)
            boot_sums = rng.binomial(counts, rate, size=(n_resamples, K, G)).astype(np.float64)
        else:
            boot_sums = np.zeros((n_resamples, K, G))
            order_idx = np.argsort(cell, kind="stable")
            bounds = np.concatenate([[0], np.cumsum(counts.ravel())])
            sorted_vals = values[order_idx]
            for c in np.flatnonzero(counts.ravel()):  # ≤ subsets × nouns cells, each resampled at once
                cell_vals = sorted_vals[bounds[c]:bounds[c + 1]]
                draw = rng.integers(0, len(cell_vals), size=(n_resamples, len(cell_vals)))
                boot_sums[:, c // G, c % G] = cell_vals[draw].sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            boot_macro = _nanmean_rows(boot_sums / counts, present)
        boot_micro = boot_sums.sum(2) / counts.sum(1)
        macro_lo, macro_hi = _percentile(boot_macro)
        micro_lo, micro_hi = _percentile(boot_micro)
    else:
        macro_lo = macro_hi = micro_lo = micro_hi = np.full(K, np.nan)

    def num(x) -> float | None:
        return None if not np.isfinite(x) else float(x)

    scores = []
    for i, subset in enumerate(order):
        n = int(counts[i].sum())
        details = {"n_nouns": int(present[i].sum())}
        scores.append(Score(subset=subset, metric=f"{metric}_macro", value=num(macro[i]), ci_low=num(macro_lo[i]),
                            ci_high=num(macro_hi[i]), n=n, details=details))
        scores.append(Score(subset=subset, metric=f"{metric}_micro", value=num(micro[i]), ci_low=num(micro_lo[i]),
                            ci_high=num(micro_hi[i]), n=n, details=details))
    return scores


def bootstrap_note(n_resamples: int, seed: int) -> dict:
    return {"method": "percentile, cases resampled within each noun", "level": LEVEL,
            "n_resamples": n_resamples, "seed": seed}
