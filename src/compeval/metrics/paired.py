"""Paired comparison of two models scored on the same items (docs/report.md): their errors correlate, so
separate intervals overlap even when one is consistently better. The interval of ``score(a) - score(b)``
comes from a paired bootstrap (one index matrix drives both), the p-value from a paired permutation test
(swapping per-item values; exact, and enumerated when the units are few). Kinds:

- ``spearman``: against reference scores; swaps *within-model ranks* (raw scales differ between models).
- ``mean``: per-item values whose mean is the metric; with ``clusters`` the unit is a cluster,
  ``weighting="macro"`` averages per-cluster means (the authors' per-noun averages).
- ``auc``: ROC AUC against binary labels; with ``clusters``, the mean of per-cluster AUCs."""
from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass

import numpy as np

from .bootstrap import percentile_interval
from .correlation import _resampled_ranks, pearson_rows, spearman_resampled
from .ranking import roc_auc_rows
from .. import seeds

KINDS = ("spearman", "mean", "auc")
WEIGHTINGS = ("micro", "macro")
P_METHODS = ("permutation", "bootstrap")
_CHUNK_CELLS = 4_000_000  # resamples × items per chunk (about 32 MB of float64)


@dataclass(frozen=True)
class PairedComparison:
    """The difference ``score_a - score_b`` on the same items, its interval and a p-value."""

    kind: str
    score_a: float
    score_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n_items: int
    n_units: int
    level: float
    n_resamples: int
    n_permutations: int
    p_method: str
    exact: bool
    seed: int

    def significant(self, alpha: float = 0.05) -> bool:
        return bool(np.isfinite(self.p_value) and self.p_value < alpha)

    def as_dict(self) -> dict:
        return asdict(self)


def paired_test(
    kind: str,
    a: np.ndarray,
    b: np.ndarray,
    *,
    reference: np.ndarray | None = None,
    labels: np.ndarray | None = None,
    clusters: np.ndarray | None = None,
    weighting: str = "micro",
    n_resamples: int = 1000,
    n_permutations: int = 1000,
    p_method: str = "permutation",
    level: float = 0.95,
    seed: int = 0,
) -> PairedComparison:
    """Compare models ``a`` and ``b`` on the same items (row ``i`` of every array is item ``i``).
    ``reference`` is required for ``spearman``, ``labels`` (bool) for ``auc``; ``clusters`` makes clusters the
    unit. ``p_method="bootstrap"``: the percentile-inversion p-value ``2·min(P*(Δ ≤ 0), P*(Δ ≥ 0))``, which
    needs no exchangeability but is only approximate."""
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r}; choose one of {', '.join(KINDS)}")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting={weighting!r}; choose one of {', '.join(WEIGHTINGS)}")
    if p_method not in P_METHODS:
        raise ValueError(f"p_method={p_method!r}; choose one of {', '.join(P_METHODS)}")
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"a and b must be 1-D and of one length (got {a.shape} and {b.shape})")
    n = len(a)
    if kind == "spearman":
        if reference is None:
            raise ValueError("kind='spearman' needs reference= (the human scores of the items)")
        if clusters is not None:
            raise ValueError("kind='spearman' resamples items; clusters are not supported")
        engine = _Spearman(a, b, _same_length(reference, n, "reference"))
    elif kind == "auc":
        if labels is None:
            raise ValueError("kind='auc' needs labels= (True for the pairs that should score high)")
        lab = _same_length(labels, n, "labels").astype(bool)
        if clusters is None:
            engine = _AUC(a, b, lab)
        else:
            codes = _cluster_codes(clusters, n)
            per_a, per_b = _cluster_auc(a, lab, codes), _cluster_auc(b, lab, codes)
            keep = np.isfinite(per_a) & np.isfinite(per_b)  # a cluster needs both labels
            engine = _Mean(per_a[keep], per_b[keep], None, "macro", n_items=n)
    else:
        codes = None if clusters is None else _cluster_codes(clusters, n)
        engine = _Mean(a, b, codes, weighting, n_items=n)

    score_a, score_b = engine.observed()
    observed = score_a - score_b
    rng = seeds.rng(seed, "paired-comparison")
    boot = engine.bootstrap(n_resamples, rng)
    low, high = percentile_interval(boot, level)
    if p_method == "permutation":
        null, exact = engine.permutation(n_permutations, rng)
        p = _permutation_p(observed, null, exact)
        n_perm = len(null)
    else:
        p, exact, n_perm = _bootstrap_p(boot), False, 0
    return PairedComparison(kind=kind, score_a=float(score_a), score_b=float(score_b),
                            difference=float(observed), ci_low=low, ci_high=high, p_value=p,
                            n_items=engine.n_items, n_units=engine.n_units, level=level,
                            n_resamples=n_resamples, n_permutations=n_perm, p_method=p_method, exact=exact,
                            seed=seed)


def _same_length(x, n: int, what: str) -> np.ndarray:
    x = np.asarray(x)
    if x.shape != (n,):
        raise ValueError(f"{what} must have one value per item ({n}); got shape {x.shape}")
    return x


def _cluster_codes(clusters, n: int) -> np.ndarray:
    clusters = _same_length(np.asarray(clusters, dtype=object), n, "clusters")
    _, codes = np.unique(clusters.astype(str), return_inverse=True)
    return codes.ravel()


def _cluster_auc(scores: np.ndarray, labels: np.ndarray, codes: np.ndarray) -> np.ndarray:
    return np.array([_auc_1d(scores[codes == c], labels[codes == c]) for c in range(int(codes.max()) + 1)])


def _auc_1d(scores: np.ndarray, labels: np.ndarray) -> float:
    return float(roc_auc_rows(scores[labels], scores[~labels]))


def _chunks(total: int, n: int):
    step = max(1, _CHUNK_CELLS // max(n, 1))
    for start in range(0, total, step):
        yield min(step, total - start)


def _permutation_p(observed: float, null: np.ndarray, exact: bool) -> float:
    """Two-sided share of swaps at least as extreme as observed: ``(1 + hits) / (1 + draws)`` for
    random swaps (never 0), hits / patterns for an enumeration (it holds the identity)."""
    null = null[np.isfinite(null)]
    if not np.isfinite(observed) or null.size == 0:
        return float("nan")
    tol = 1e-12 * max(1.0, abs(observed))
    hits = int((np.abs(null) >= abs(observed) - tol).sum())
    return hits / null.size if exact else (1 + hits) / (1 + null.size)


def _bootstrap_p(boot: np.ndarray) -> float:
    boot = boot[np.isfinite(boot)]
    if boot.size == 0:
        return float("nan")
    return float(min(1.0, 2 * min((boot <= 0).mean(), (boot >= 0).mean())))


def _signs(n_units: int, n_permutations: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """±1 swap patterns (rows): all 2^k of them when that is no more than asked for, else random."""
    if n_units <= 20 and 2 ** n_units <= n_permutations:
        return np.array(list(itertools.product((1.0, -1.0), repeat=n_units))), True
    return rng.choice(np.array([1.0, -1.0]), size=(n_permutations, n_units)), False


class _Mean:
    """Mean of per-item values, optionally over clusters (micro: pooled; macro: mean of cluster means)."""

    def __init__(self, a: np.ndarray, b: np.ndarray, codes: np.ndarray | None, weighting: str, n_items: int):
        keep = np.isfinite(a) & np.isfinite(b)
        self.n_items = n_items
        if codes is None:
            # Items are their own units; macro and micro coincide.
            self.sa, self.sb, self.count = a[keep], b[keep], np.ones(int(keep.sum()))
        else:
            codes = codes[keep]
            k = int(codes.max()) + 1 if codes.size else 0
            self.count = np.bincount(codes, minlength=k).astype(np.float64)
            self.sa = np.bincount(codes, weights=a[keep], minlength=k)
            self.sb = np.bincount(codes, weights=b[keep], minlength=k)
            present = self.count > 0
            self.sa, self.sb, self.count = self.sa[present], self.sb[present], self.count[present]
        if weighting == "macro":  # per-unit means, each unit weighing the same
            self.sa, self.sb, self.count = self.sa / self.count, self.sb / self.count, np.ones_like(self.count)
        self.n_units = len(self.count)

    def observed(self) -> tuple[float, float]:
        total = self.count.sum()
        if total == 0:
            return float("nan"), float("nan")
        return self.sa.sum() / total, self.sb.sum() / total

    def bootstrap(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        k = self.n_units
        if k < 2 or n_resamples <= 0:
            return np.array([])
        d = self.sa - self.sb
        out = []
        for size in _chunks(n_resamples, k):
            idx = rng.integers(0, k, size=(size, k))
            out.append(d[idx].sum(axis=1) / self.count[idx].sum(axis=1))
        return np.concatenate(out)

    def permutation(self, n_permutations: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
        if self.n_units == 0:
            return np.array([]), False
        signs, exact = _signs(self.n_units, n_permutations, rng)
        return signs @ (self.sa - self.sb) / self.count.sum(), exact


class _Spearman:
    """Spearman ρ of each model's scores with the reference; bootstrap by resampled ranks."""

    def __init__(self, a: np.ndarray, b: np.ndarray, reference: np.ndarray):
        reference = np.asarray(reference, dtype=np.float64)
        keep = np.isfinite(a) & np.isfinite(b) & np.isfinite(reference)
        self.a, self.b, self.ref = a[keep], b[keep], reference[keep]
        self.n_items = self.n_units = int(keep.sum())

    def observed(self) -> tuple[float, float]:
        if self.n_items < 2:
            return float("nan"), float("nan")
        ident = np.arange(self.n_items)[None, :]
        return (float(spearman_resampled(self.a, self.ref, ident)[0]),
                float(spearman_resampled(self.b, self.ref, ident)[0]))

    def bootstrap(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        n = self.n_items
        if n < 2 or n_resamples <= 0:
            return np.array([])
        out = []
        for size in _chunks(n_resamples, 2 * n):
            idx = rng.integers(0, n, size=(size, n))
            ref = _resampled_ranks(self.ref, idx)
            out.append(pearson_rows(_resampled_ranks(self.a, idx), ref)
                       - pearson_rows(_resampled_ranks(self.b, idx), ref))
        return np.concatenate(out)

    def permutation(self, n_permutations: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
        n = self.n_items
        if n < 2:
            return np.array([]), False
        # Within-model ranks scaled to [0, 1]: the swapped values are then on one scale.
        ident = np.arange(n)[None, :]
        ra = (_resampled_ranks(self.a, ident)[0] - 1) / (n - 1)
        rb = (_resampled_ranks(self.b, ident)[0] - 1) / (n - 1)
        pooled = np.concatenate([ra, rb])
        ref = _resampled_ranks(self.ref, ident)
        out = []
        for size in _chunks(n_permutations, 2 * n):
            swap = rng.random((size, n)) < 0.5
            ia = np.where(swap, np.arange(n) + n, np.arange(n))
            ib = np.where(swap, np.arange(n), np.arange(n) + n)
            out.append(pearson_rows(_resampled_ranks(pooled, ia), ref)
                       - pearson_rows(_resampled_ranks(pooled, ib), ref))
        return np.concatenate(out), False


class _AUC:
    """Pooled ROC AUC; bootstrap stratified by label (the numbers of positives and negatives stay fixed)."""

    def __init__(self, a: np.ndarray, b: np.ndarray, labels: np.ndarray):
        self.a, self.b, self.labels = a, b, labels
        self.pos, self.neg = np.flatnonzero(labels), np.flatnonzero(~labels)
        self.n_items = self.n_units = len(a)

    def observed(self) -> tuple[float, float]:
        return _auc_1d(self.a, self.labels), _auc_1d(self.b, self.labels)

    def bootstrap(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        p, q = len(self.pos), len(self.neg)
        if p < 2 or q < 2 or n_resamples <= 0:
            return np.array([])
        out = []
        for size in _chunks(n_resamples, 2 * (p + q)):
            ip = self.pos[rng.integers(0, p, size=(size, p))]
            iq = self.neg[rng.integers(0, q, size=(size, q))]
            out.append(roc_auc_rows(self.a[ip], self.a[iq]) - roc_auc_rows(self.b[ip], self.b[iq]))
        return np.concatenate(out)

    def permutation(self, n_permutations: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
        n = self.n_items
        if len(self.pos) == 0 or len(self.neg) == 0:
            return np.array([]), False
        ident = np.arange(n)[None, :]
        # AUC depends only on order, so swap within-model ranks (NaN scores rank lowest, as in roc_auc).
        a = np.where(np.isnan(self.a), -np.inf, self.a)
        b = np.where(np.isnan(self.b), -np.inf, self.b)
        pooled = np.concatenate([_resampled_ranks(a, ident)[0] / n, _resampled_ranks(b, ident)[0] / n])
        out = []
        for size in _chunks(n_permutations, 2 * n):
            swap = rng.random((size, n)) < 0.5
            va = pooled[np.where(swap, np.arange(n) + n, np.arange(n))]
            vb = pooled[np.where(swap, np.arange(n), np.arange(n) + n)]
            out.append(roc_auc_rows(va[:, self.pos], va[:, self.neg]) - roc_auc_rows(vb[:, self.pos], vb[:, self.neg]))
        return np.concatenate(out), False
