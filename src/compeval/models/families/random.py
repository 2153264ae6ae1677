"""Seeded random-vector baseline: each distinct text gets its own fixed Gaussian vector.

It knows nothing of words, so it sets the floor every real model should clear.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..options import MAX_DIM, ModelOptions, identity_field
from ..protocol import ModelConfig
from ..registry import register_model
from .toy import hashed_gaussian


class RandomModel:
    def __init__(self, dim: int = 300, seed: int = 0, *, options: "RandomOptions | None" = None):
        self.dim, self.seed = dim, seed
        options = options or RandomOptions(dim=dim, seed=seed)  # made directly: what its arguments amount to
        self._config = options.to_model_config("random")

    @property
    def config(self) -> ModelConfig:
        return self._config

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i] = hashed_gaussian(f"{self.seed}\x00{t}", self.dim)
        return out


class RandomOptions(ModelOptions):
    """Both options are always in the display name (``random,dim=300,seed=0``), as ids written before have them."""

    dim: int = identity_field(300, show="always", ge=1, le=MAX_DIM)
    seed: int = identity_field(0, show="always", ge=0)


@register_model("random", 1, "seeded random vector per text (chance baseline)", ("random",),
                options=RandomOptions)
def _random(resolved, builder):
    opts = resolved.options
    return RandomModel(dim=opts.dim, seed=opts.seed, options=opts)
