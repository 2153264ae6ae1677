"""Shared helpers for the modifier-suite tests: the shared data folder and tiny deterministic encoders."""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest

from compeval.models.protocol import ModelConfig
from compeval.models.families.toy import word_vector


@pytest.fixture
def data_dir() -> Path:
    root = os.environ.get("COMPEVAL_DATA_DIR")
    if not root:
        pytest.skip("COMPEVAL_DATA_DIR is unset; point it at the shared data folder to check against real files")
    path = Path(root) / "modifier_consistency"
    if not path.is_dir():
        pytest.skip(f"{path} does not exist")
    return path


@lru_cache(maxsize=None)
def _word(word: str, dim: int, seed: int) -> np.ndarray:
    return word_vector(word, dim, seed)


class MeanOfWords:
    """Mean of per-word pseudo-random vectors (whitespace tokens): the mean-pooling composition."""

    def __init__(self, dim: int = 16, seed: int = 0):
        self.dim, self.seed = dim, seed
        self.config = ModelConfig(family="test-mean.v1", name="mean-of-words", params={"dim": dim, "seed": seed})
        self.requested: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.requested.extend(texts)
        return np.stack([np.mean([_word(w, self.dim, self.seed) for w in t.split()], axis=0) for t in texts])


class RandomPerText(MeanOfWords):
    """Every text (phrase or word) gets its own unrelated vector: no composition at all."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([_word("text:" + t, self.dim, self.seed) for t in texts])
