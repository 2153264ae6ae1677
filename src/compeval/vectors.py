"""Cosines of rows and per-dimension normalisations, in numpy only so that models, metrics and tasks can import it."""
from __future__ import annotations

import numpy as np


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


#: ``zscore``'s guard against a constant column (the STS3k authors' helper adds it to the std).
ZSCORE_EPS = 0.001


def zscore(matrix: np.ndarray) -> np.ndarray:
    """Standardise each column: ``(x − mean) / (std + 0.001)`` (population std, as numpy's default)."""
    m = np.asarray(matrix, dtype=np.float64)
    return (m - m.mean(axis=0)) / (m.std(axis=0) + ZSCORE_EPS)


def center(matrix: np.ndarray) -> np.ndarray:
    """Subtract each column's mean, no scaling."""
    m = np.asarray(matrix, dtype=np.float64)
    return m - m.mean(axis=0)


#: Per-dimension normalisations over a set of vectors (the STS3k ``_norml`` variants), by the name a task's
#: ``norm`` option gives: a new one adds one entry here.
NORMALISERS = {"zscore": zscore, "center": center}
