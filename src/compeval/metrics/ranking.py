"""Threshold-free separation metrics for pair scores (Cheung & Penn 2012): ROC AUC (Mann-Whitney, ties ½,
vectorised over bootstrap rows) and an answer's normalised rank among candidates (ties at the block's median).
Missing scores (NaN) rank below every real score and tie with each other, so no opinion scores chance (0.5)."""
from __future__ import annotations

import numpy as np

from .bootstrap import DEFAULT_RESAMPLES, bootstrap_ci, mean_ci
from .ties import at_rank_precision
from .. import seeds
from ..lazy import lazy_module

stats = lazy_module("scipy.stats")


def _missing_at_bottom(scores: np.ndarray) -> np.ndarray:
    """The scores at the rank precision, NaN below every real score."""
    scores = at_rank_precision(scores)
    return np.where(np.isnan(scores), -np.inf, scores)


def roc_auc_rows(positive: np.ndarray, negative: np.ndarray) -> np.ndarray:
    """AUC along the last axis: ``positive`` (..., n_pos) against ``negative`` (..., n_neg)."""
    pos = _missing_at_bottom(positive)
    neg = _missing_at_bottom(negative)
    n_pos, n_neg = pos.shape[-1], neg.shape[-1]
    if n_pos == 0 or n_neg == 0:
        return np.full(pos.shape[:-1], np.nan)
    ranks = stats.rankdata(np.concatenate([pos, neg], axis=-1), axis=-1)  # average ranks for ties
    u = ranks[..., :n_pos].sum(axis=-1) - n_pos * (n_pos + 1) / 2.0
    return u / (n_pos * n_neg)


def roc_auc(positive: np.ndarray, negative: np.ndarray) -> float:
    """P(random positive > random negative) + ½ P(tie); NaN scores rank lowest. NaN if a side is empty."""
    return float(roc_auc_rows(np.asarray(positive, dtype=np.float64), np.asarray(negative, dtype=np.float64)))


def roc_auc_ci(positive: np.ndarray, negative: np.ndarray, n_resamples: int = DEFAULT_RESAMPLES,
               seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval by a stratified bootstrap (positives and negatives resampled separately);
    pairs sharing sentences are not independent, so it is narrower than one over sentences."""
    pos = np.asarray(positive, dtype=np.float64)
    neg = np.asarray(negative, dtype=np.float64)
    if len(pos) < 2 or len(neg) < 2 or n_resamples <= 0:
        return float("nan"), float("nan")
    rng = seeds.rng(seed, "roc-auc-bootstrap")
    dist = roc_auc_rows(pos[rng.integers(0, len(pos), (n_resamples, len(pos)))],
                        neg[rng.integers(0, len(neg), (n_resamples, len(neg)))])
    alpha = (1 - level) / 2
    low, high = np.quantile(dist, [alpha, 1 - alpha])
    return float(low), float(high)


def normalised_ranks(scores: np.ndarray, groups: np.ndarray, is_answer: np.ndarray) -> np.ndarray:
    """Per group (``groups``: codes 0..G−1, each with one answer and ≥ 2 candidates):
    ``1 − rank / (len − 1)`` of its answer, where ``rank`` counts candidates scoring higher plus half the ties."""
    scores = _missing_at_bottom(scores)
    groups = np.asarray(groups, dtype=np.int64)
    is_answer = np.asarray(is_answer, dtype=bool)
    n_groups = int(groups.max()) + 1 if groups.size else 0
    sizes = np.bincount(groups, minlength=n_groups)
    answers = np.bincount(groups[is_answer], minlength=n_groups)
    if (answers != 1).any():
        bad = int(np.flatnonzero(answers != 1)[0])
        raise ValueError(f"group {bad} has {answers[bad]} answers; each needs exactly one")
    if (sizes < 2).any():
        bad = int(np.flatnonzero(sizes < 2)[0])
        raise ValueError(f"group {bad} has {sizes[bad]} candidate(s); a rank needs at least two")
    answer_score = np.empty(n_groups)
    answer_score[groups[is_answer]] = scores[is_answer]
    ref = answer_score[groups]
    higher = np.bincount(groups, weights=(scores > ref) & ~is_answer, minlength=n_groups)
    tied = np.bincount(groups, weights=(scores == ref) & ~is_answer, minlength=n_groups)
    rank = higher + tied / 2.0
    return 1.0 - rank / (sizes - 1)


def normalised_rank(answer_score: float, other_scores: np.ndarray) -> float:
    """One document: the answer's normalised rank among ``other_scores`` (see ``normalised_ranks``)."""
    others = np.asarray(other_scores, dtype=np.float64)
    scores = np.concatenate([[answer_score], others])
    flags = np.zeros(len(scores), dtype=bool)
    flags[0] = True
    return float(normalised_ranks(scores, np.zeros(len(scores), dtype=np.int64), flags)[0])


__all__ = ["roc_auc", "roc_auc_rows", "roc_auc_ci", "normalised_rank", "normalised_ranks", "bootstrap_ci",
           "mean_ci"]
