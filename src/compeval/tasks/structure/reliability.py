"""Reliability of the STS3k ratings: split-half (Spearman–Brown) and linear-weighted Cohen's kappa.

Every halving at once: ratings (pairs × raters) times membership (raters × splits) is two matrix products."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ...errors import DataError, MalformedDataError
from ... import seeds
from ...lazy import lazy_module

pd = lazy_module("pandas")


def read_ratings_long(path: Path) -> pd.DataFrame:
    """``pair_index main_id participant rating_1to7`` (tab-separated, header)."""
    try:
        df = pd.read_csv(path, sep="\t")
    except Exception as exc:  # pandas raises several parser errors
        raise MalformedDataError(path, 1, f"not a readable TSV ({exc})") from None
    need = {"pair_index", "participant", "rating_1to7"}
    if not need <= set(df.columns):
        raise MalformedDataError(path, 1, f"header lacks {', '.join(sorted(need - set(df.columns)))}")
    bad = ~df["rating_1to7"].between(1, 7)
    if bad.any():
        raise MalformedDataError(path, int(np.flatnonzero(bad)[0]) + 2, "rating outside 1–7")
    return df


def rating_matrix(df: pd.DataFrame, n_pairs: int | None = None) -> np.ndarray:
    """(pairs × participants) ratings on the 1–7 scale, NaN where a participant did not see a pair."""
    pairs = df["pair_index"].to_numpy(int)
    people, pid = np.unique(df["participant"].to_numpy(), return_inverse=True)
    n = int(pairs.max()) + 1 if n_pairs is None else n_pairs
    if pairs.min() < 0 or pairs.max() >= n:
        raise DataError(f"pair_index outside 0..{n - 1}")
    out = np.full((n, len(people)), np.nan)
    out[pairs, pid] = df["rating_1to7"].to_numpy(float)
    return out


def split_half(ratings: np.ndarray, rows: np.ndarray, n_splits: int = 100, seed: int = 0
               ) -> dict[str, np.ndarray]:
    """Per random halving of the raters: Pearson r of the halves' normalised means over ``rows``, its
    Spearman–Brown correction 2r/(1+r), and linear-weighted kappa on the ceil-rounded 1–7 means, raw and
    corrected like r (``kappa_spearman_brown``: the paper's .833 / .826 / .804); quadratic kappa beside them.
    Pairs that one half never rated are left out of that halving (counted in ``n_used``)."""
    r = ratings[rows]
    seen = ~np.isnan(r)
    values = np.where(seen, r, 0.0)
    n_raters = r.shape[1]
    rng = seeds.rng(seed, "split-half")
    member = np.zeros((n_raters, n_splits))
    for k in range(n_splits):
        member[rng.permutation(n_raters)[: n_raters // 2], k] = 1.0
    halves = []
    for m in (member, 1.0 - member):
        sums, counts = values @ m, seen.astype(float) @ m
        with np.errstate(invalid="ignore", divide="ignore"):
            halves.append(sums / counts)  # (rows × splits), 1–7 scale, NaN if unrated
    a, b = halves
    from sklearn.metrics import cohen_kappa_score

    pearson = np.empty(n_splits)
    kappa = np.empty(n_splits)
    kappa_q = np.empty(n_splits)
    used = np.empty(n_splits, dtype=int)
    for k in range(n_splits):
        ok = np.isfinite(a[:, k]) & np.isfinite(b[:, k])
        x, y = (a[ok, k] - 1) / 6, (b[ok, k] - 1) / 6
        pearson[k] = np.corrcoef(x, y)[0, 1]
        ra, rb = np.ceil(a[ok, k]).astype(int), np.ceil(b[ok, k]).astype(int)
        kappa[k] = cohen_kappa_score(ra, rb, weights="linear")
        kappa_q[k] = cohen_kappa_score(ra, rb, weights="quadratic")
        used[k] = ok.sum()
    return {"pearson": pearson, "spearman_brown": spearman_brown(pearson), "kappa": kappa,
            "kappa_spearman_brown": spearman_brown(kappa), "kappa_quadratic": kappa_q, "n_used": used}


def spearman_brown(r: np.ndarray) -> np.ndarray:
    """Reliability of the full panel from that of a half: 2r/(1+r)."""
    r = np.asarray(r, dtype=np.float64)
    return 2 * r / (1 + r)


def mean_rater_sd(ratings: np.ndarray, rows: np.ndarray) -> float:
    """Mean over pairs of the raters' SD, on the 0–1 scale (ratings / 6), sample SD (ddof=1)."""
    with np.errstate(invalid="ignore"):
        sd = np.nanstd(ratings[rows], axis=1, ddof=1) / 6
    return float(np.nanmean(sd))


def shuffle_within_raters(ratings: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each participant's ratings permuted among the pairs they rated (``Check_STS3k_ratings_shuffled.ipynb``),
    breaking any link between a pair and its rating: Figure 2's null distribution."""
    out = np.full_like(ratings, np.nan)
    for j in range(ratings.shape[1]):
        rows = np.flatnonzero(~np.isnan(ratings[:, j]))
        out[rows, j] = ratings[rng.permutation(rows), j]
    return out


def normalised_means(ratings: np.ndarray) -> np.ndarray:
    """Per pair, the mean rating over the participants who rated it, as (mean − 1) / 6 (0–1)."""
    seen = ~np.isnan(ratings)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.where(seen, ratings, 0.0).sum(axis=1) / seen.sum(axis=1) - 1) / 6


def shuffled_ks(ratings: np.ndarray, rows: np.ndarray, seed: int, bins: int = 20) -> dict:
    """Figure 2: the pair means of the real ratings against those of ratings shuffled within each rater,
    compared with scipy's two-sample Kolmogorov–Smirnov test; histograms on ``bins`` equal bins of 0–1."""
    from scipy.stats import ks_2samp

    r = ratings[rows]
    actual = normalised_means(r)
    shuffled = normalised_means(shuffle_within_raters(r, seeds.rng(seed, "shuffle-within-raters")))
    ks = ks_2samp(actual, shuffled)
    edges = np.linspace(0.0, 1.0, bins + 1)
    return {"actual": actual, "shuffled": shuffled, "statistic": float(ks.statistic), "p_value": float(ks.pvalue),
            "edges": edges, "hist_actual": np.histogram(actual, edges)[0], "hist_shuffled": np.histogram(shuffled, edges)[0]}
