"""Seeded random-vector baseline: each distinct text gets its own fixed Gaussian vector.

It knows nothing of words, so it sets the floor every real model should clear.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..specs import pop_option, reject_unknown
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


@register_model("random", 1, "seeded random vector per text (chance baseline)", ("random[,dim=300][,seed=0]",))
def _random(spec, builder):
    opts = dict(spec.options)
    dim = pop_option(opts, "dim", 300, int, spec=str(spec), low=1)
    seed = pop_option(opts, "seed", 0, int, spec=str(spec))
    reject_unknown(opts, str(spec), ["dim", "seed"])
    return RandomModel(dim=dim, seed=seed)
