"""Seeded random-vector baseline: a fixed Gaussian vector per distinct text, the floor every model clears."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..options import MAX_DIM, KeepsConfig, ModelOptions, identity_field
from ..registry import register_model
from .toy import hashed_gaussian


class RandomModel(KeepsConfig):
    def __init__(self, dim: int = 300, seed: int = 0, *, options: "RandomOptions | None" = None):
        self.dim, self.seed = dim, seed
        options = options or RandomOptions(dim=dim, seed=seed)  # made directly: what its arguments amount to
        self._config = options.to_model_config("random")

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
