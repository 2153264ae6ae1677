"""Seeded random-vector baseline: each distinct text gets its own fixed Gaussian vector.

It knows nothing of words, so it sets the floor every real model should clear.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from pydantic import Field

from .options import MAX_DIM, ModelOptions
from .protocol import ModelConfig
from .registry import register_model
from .toy import hashed_gaussian


class RandomModel:
    def __init__(self, dim: int = 300, seed: int = 0):
        self.dim, self.seed = dim, seed
        self._config = ModelConfig(family="random.v1", name="random", params={"dim": dim, "seed": seed},
                                   shown_params=("dim", "seed"))

    @property
    def config(self) -> ModelConfig:
        return self._config

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i] = hashed_gaussian(f"{self.seed}\x00{t}", self.dim)
        return out


class RandomOptions(ModelOptions):
    dim: int = Field(300, ge=1, le=MAX_DIM)
    seed: int = Field(0, ge=0)


@register_model("random", 1, "seeded random vector per text (chance baseline)", ("random",),
                options=RandomOptions)
def _random(spec, builder, opts):
    return RandomModel(dim=opts.dim, seed=opts.seed)
