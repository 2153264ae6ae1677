"""Tiny deterministic models for tests and examples: ``HashBagEncoder`` (order-blind bag of hashed word
vectors) and ``TableEncoder`` (hand-built vectors for known texts)."""
from __future__ import annotations

import hashlib
import re
from typing import Mapping, Sequence

import numpy as np
from pydantic import Field

from ... import seeds
from ..options import MAX_DIM, KeepsConfig, ModelOptions, identity_field
from ..registry import register_model

_WORD = re.compile(r"[a-z0-9]+")


def word_vector(word: str, dim: int, seed: int = 0) -> np.ndarray:
    return hashed_gaussian(f"{seed}:{word}", dim)


def hashed_gaussian(key: str, dim: int) -> np.ndarray:
    """A standard-normal vector fixed by ``key`` alone: the same on every machine and run."""
    return seeds.keyed_rng(key).standard_normal(dim).astype(np.float32)


class HashBagEncoder(KeepsConfig):
    """Mean of hashed word vectors: order-blind, deterministic, any vocabulary."""

    def __init__(self, dim: int = 32, seed: int = 0, *, options: "HashBagOptions | None" = None):
        self.dim, self.seed = dim, seed
        options = options or HashBagOptions(dim=dim, seed=seed)  # made directly: what its arguments amount to
        self._config = options.to_model_config("hashbag")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            words = _WORD.findall(t.lower())
            if words:
                out[i] = np.mean([word_vector(w, self.dim, self.seed) for w in words], axis=0)
        return out


class TableEncoder(KeepsConfig):
    """Returns the vector given for each text; unknown texts are an error. For hand-built test cases."""

    def __init__(self, table: Mapping[str, Sequence[float]], name: str = "table"):
        self.table = {k: np.asarray(v, dtype=np.float32) for k, v in table.items()}
        digest = hashlib.sha256(repr(sorted((k, v.tolist()) for k, v in self.table.items())).encode()).hexdigest()
        self._config = ModelOptions().to_model_config(name, family="table.v1", facts={"sha256": digest[:16]})

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self.table]
        if missing:
            raise KeyError(f"TableEncoder has no vector for {missing[:3]}")
        return np.stack([self.table[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)


class HashBagOptions(ModelOptions):
    """Only ``dim`` is in the display name (``hashbag,dim=16``), as ids written before have it."""

    dim: int = Field(32, ge=1, le=MAX_DIM)
    seed: int = identity_field(0, show="never", ge=0)


@register_model("hashbag", 1, "deterministic bag of hashed word vectors (tests, examples)", ("hashbag",),
                options=HashBagOptions)
def _hashbag(resolved, builder):
    opts = resolved.options
    return HashBagEncoder(dim=opts.dim, seed=opts.seed, options=opts)
