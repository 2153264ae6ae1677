"""Per-dimension normalisation over each side of the pairs before the cosine (the STS3k ``_norml`` variants).

Two forms, both computed separately over the first and over the second sentences of the pairs as listed
(repeated sentences count once per pair):

- ``norm=zscore``: ``(x − mean_d) / (std_d + 0.001)``, the standardisation the STS3k paper's text and the
  authors' helper function describe;
- ``norm=center``: ``x − mean_d`` only. This is what reproduces the authors' published normalised per-pair
  files, and so the paper's tables (SentBERT all/non/adv .5799/.8661/.1448 against zscore's .5866/.8671/.1603).

Because the statistics depend on the whole set of pairs, scores are not cached per pair; the vectors
underneath are.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..vectors import cosine_rows
from .protocol import ModelConfig

EPS = 0.001


def zscore(matrix: np.ndarray) -> np.ndarray:
    """Standardise each column: ``(x − mean) / (std + 0.001)`` (population std, as numpy's default)."""
    m = np.asarray(matrix, dtype=np.float64)
    return (m - m.mean(axis=0)) / (m.std(axis=0) + EPS)


def center(matrix: np.ndarray) -> np.ndarray:
    """Subtract each column's mean, no scaling."""
    m = np.asarray(matrix, dtype=np.float64)
    return m - m.mean(axis=0)


NORMALISERS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"zscore": zscore, "center": center}


class NormalizedCosine:
    """Cosine after normalising each side's matrix of vectors with ``NORMALISERS[method]``."""

    cacheable = False

    def __init__(self, inner: Any, method: str = "zscore"):
        if method not in NORMALISERS:
            raise ValueError(f"unknown normalisation {method!r}; expected one of {sorted(NORMALISERS)}")
        self.inner = inner
        self.method = method
        self._normalise = NORMALISERS[method]

    @property
    def config(self) -> ModelConfig:
        """Derived on each call, so settings the inner model records when it loads (device) show through."""
        c = self.inner.config
        return c.model_copy(update={"params": {**c.params, "norm": self.method},
                                    "shown_params": tuple(c.shown_params) + ("norm",)})

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Raw vectors (normalisation needs the pairs, so it happens in ``score_pairs``)."""
        return self.inner.encode(texts)

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        a = self.inner.encode(list(texts_a))
        b = self.inner.encode(list(texts_b))
        return cosine_rows(self._normalise(a), self._normalise(b))


class ZScoreCosine(NormalizedCosine):
    """``norm=zscore`` (the STS3k paper's text: per-dimension standardisation, std + 0.001)."""

    def __init__(self, inner: Any):
        super().__init__(inner, "zscore")


class CenteredCosine(NormalizedCosine):
    """``norm=center`` (reproduces the STS3k paper's published normalised tables: per-side mean-centring)."""

    def __init__(self, inner: Any):
        super().__init__(inner, "center")
