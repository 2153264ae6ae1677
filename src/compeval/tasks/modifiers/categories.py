"""Do the adjective types differ? A Kruskal–Wallis test over the per-case scores (docs/modifiers.md).

The permutation H is the rank-sum formula on ``np.bincount``: scipy's ``permutation_test`` would re-rank
up to 241,560 cases per resample; a test checks it equals scipy's H on the observed labels."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...metrics.ties import at_rank_precision
from ...results.schema import Score
from .stimuli import PAD
from ... import seeds
from ...lazy import lazy_module

stats = lazy_module("scipy.stats")

N_TYPES = 5


@dataclass(frozen=True)
class CategoryTest:
    statistic: float | None  # Kruskal-Wallis H (tie-corrected); None when every case has the same outcome
    df: int
    p_value: float | None  # asymptotic chi-square (scipy.stats.kruskal)
    p_permutation: float | None  # adjective labels permuted
    permutations: int
    n: int
    group_sizes: dict[str, int]


def group_codes(adjectives: np.ndarray, adjective_types: np.ndarray) -> np.ndarray:
    """Group of each case from its adjectives' type ids: one column -> the type; two -> the ordered pair."""
    adjectives = np.atleast_2d(np.asarray(adjectives).T).T  # (N, m)
    code = np.zeros(len(adjectives), np.int64)
    for j in range(adjectives.shape[1]):
        if (adjectives[:, j] == PAD).any():
            raise ValueError("a case without an adjective in a grouping column")
        code = code * N_TYPES + adjective_types[adjectives[:, j]]
    return code


def _h_from_ranks(ranks: np.ndarray, codes: np.ndarray, n_codes: int, tie: float) -> float:
    """Kruskal-Wallis H from precomputed (average) ranks: 12/(N(N+1)) Σ R_g²/n_g - 3(N+1), over the tie factor."""
    n = len(ranks)
    counts = np.bincount(codes, minlength=n_codes).astype(np.float64)
    sums = np.bincount(codes, weights=ranks, minlength=n_codes)
    present = counts > 0
    h = 12.0 / (n * (n + 1)) * np.sum(sums[present] ** 2 / counts[present]) - 3.0 * (n + 1)
    return float(h / tie)


def category_test(values: np.ndarray, adjectives: np.ndarray, adjective_types: np.ndarray, labels: list[str],
                  *, permutations: int, seed: int) -> CategoryTest:
    """The test over ``values`` (one per case) grouped by the types of ``adjectives`` ((N,) or (N, 2) indices);
    ``adjective_types`` holds each adjective's type id and ``labels`` the type names in that order."""
    values = at_rank_precision(values)  # a rank test: values equal at the rank precision are ties
    adjectives = np.asarray(adjectives)
    keep = ~np.isnan(values)
    values, adjectives = values[keep], adjectives[keep]
    width = 1 if adjectives.ndim == 1 else adjectives.shape[1]
    n_codes = N_TYPES ** width
    codes = group_codes(adjectives, adjective_types)
    present = np.flatnonzero(np.bincount(codes, minlength=n_codes))
    names = ["|".join(labels[(c // N_TYPES ** (width - 1 - j)) % N_TYPES] for j in range(width)) for c in range(n_codes)]
    sizes = {names[c]: int((codes == c).sum()) for c in present}
    df = len(present) - 1
    if df < 1 or np.all(values == values[0]):
        return CategoryTest(None, max(df, 0), None, None, permutations, len(values), sizes)
    h, p = stats.kruskal(*(values[codes == c] for c in present))
    p_perm = None
    if permutations:
        ranks = stats.rankdata(values)
        _, t = np.unique(values, return_counts=True)
        tie = 1.0 - float(np.sum(t.astype(np.float64) ** 3 - t)) / (len(values) ** 3 - len(values))
        observed = _h_from_ranks(ranks, codes, n_codes, tie)
        rng = seeds.rng(seed, "category-permutation")  # this test's own stream
        beyond = 0
        for _ in range(permutations):
            shuffled = adjective_types[rng.permutation(len(adjective_types))]
            # a tolerance so that a relabelling giving the same H is not lost to rounding
            beyond += _h_from_ranks(ranks, group_codes(adjectives, shuffled), n_codes, tie) >= observed * (1 - 1e-12)
        p_perm = (1 + beyond) / (1 + permutations)
    return CategoryTest(float(h), df, float(p), p_perm, permutations, len(values), sizes)


#: What each p-value treats as its independent unit: the claim is about adjectives, so the headline p is the
#: permutation p over adjectives; the χ² p is kept, named for what it assumes.
P_UNITS = {
    "types_kw_p": "adjective: permutation p, the type labels shuffled over the 61 adjectives (the claim's unit)",
    "types_kw_p_chi2": "{case}: asymptotic χ² p (scipy.stats.kruskal), every {case} an independent draw",
}


def category_scores(test: CategoryTest, subset: str, grouping: str, case: str) -> list[Score]:
    """``types_kw_h``, ``types_kw_p`` (adjective as the unit, the headline) and ``types_kw_p_chi2`` (``case``
    as the unit) in ``subset``; each score's ``unit`` detail says which."""
    details = {"df": test.df, "grouped_by": grouping, "group_sizes": test.group_sizes,
               "p_permutation": test.p_permutation, "permutations": test.permutations,
               "permutation_unit": "adjective (type labels shuffled over the 61 adjectives)",
               "p_asymptotic": test.p_value}
    if test.statistic is None:
        details["reason"] = "every case has the same outcome (or one group only): no test"
    elif not test.permutations:
        details["reason"] = "permutations=0: no permutation p"
    units = {m: u.format(case=case) for m, u in P_UNITS.items()}
    return [Score(subset=subset, metric="types_kw_h", value=test.statistic, n=test.n, details=details),
            Score(subset=subset, metric="types_kw_p", value=test.p_permutation, n=test.n,
                  details={**details, "unit": units["types_kw_p"]}),
            Score(subset=subset, metric="types_kw_p_chi2", value=test.p_value, n=test.n,
                  details={**details, "unit": units["types_kw_p_chi2"]})]


#: The three metrics describe, they do not rank.
CATEGORY_DIRECTIONS = {"types_kw_h": "none", "types_kw_p": "none", "types_kw_p_chi2": "none"}
