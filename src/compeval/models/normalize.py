"""Per-dimension z-score normalisation before the cosine (the STS3k paper's ``_norml`` variants).

Each dimension is standardised over the data set, ``(x − mean_d) / (std_d + 0.001)``, separately over
the first and the second sentences of the pairs. Because the statistics depend on the whole set of
pairs, scores are not cached per pair; the vectors underneath are.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..vectors import cosine_rows
from .protocol import ModelConfig

EPS = 0.001


def zscore(matrix: np.ndarray) -> np.ndarray:
    m = np.asarray(matrix, dtype=np.float64)
    return (m - m.mean(axis=0)) / (m.std(axis=0) + EPS)


class ZScoreCosine:
    cacheable = False

    def __init__(self, inner: Any):
        self.inner = inner

    @property
    def config(self) -> ModelConfig:
        """Derived on each call, so settings the inner model records when it loads (device) show through."""
        c = self.inner.config
        return c.model_copy(update={"params": {**c.params, "norm": "zscore"},
                                    "shown_params": tuple(c.shown_params) + ("norm",)})

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Raw vectors (normalisation needs the pairs, so it happens in ``score_pairs``)."""
        return self.inner.encode(texts)

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        a = self.inner.encode(list(texts_a))
        b = self.inner.encode(list(texts_b))
        return cosine_rows(zscore(a), zscore(b))
