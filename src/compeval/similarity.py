"""Similarity of texts under any model: its own pair scores, or the cosine of its vectors.

``pair_similarity`` prefers a model's own pair scores and otherwise takes the cosine of its
vectors; ``embed`` encodes unique texts once and returns a matrix plus a row index.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .models.protocol import can_encode, can_score_pairs


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine; a zero vector gives NaN (no direction, so no similarity)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    num = np.einsum("ij,ij->i", a, b)
    den = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = num / den
    out[den == 0] = np.nan
    return out


def unit_rows(m: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), for cosine matrices by matrix product."""
    m = np.asarray(m, dtype=np.float64)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norms > 0, m / norms, 0.0)


def embed(model: Any, texts: Sequence[str]) -> tuple[np.ndarray, dict[str, int]]:
    """Encode the unique texts once; returns (matrix, text → row)."""
    unique = list(dict.fromkeys(texts))
    matrix = model.encode(unique)
    return matrix, {t: i for i, t in enumerate(unique)}


def pair_similarity(model: Any, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
    """Similarity of each (a, b) pair: the model's own scores, or cosine of its vectors."""
    if can_score_pairs(model):
        return np.asarray(model.score_pairs(list(texts_a), list(texts_b)), dtype=np.float64)
    if not can_encode(model):
        raise TypeError(f"{model!r} neither encodes nor scores pairs")
    matrix, row = embed(model, list(texts_a) + list(texts_b))
    ia = np.fromiter((row[t] for t in texts_a), dtype=np.int64, count=len(texts_a))
    ib = np.fromiter((row[t] for t in texts_b), dtype=np.int64, count=len(texts_b))
    return cosine_rows(matrix[ia], matrix[ib])
