"""Mixed model: the sum of several models' pair scores (an encoder gives its cosine), as Cheung & Penn
add lemma overlap to a distributional score: ``mixed:overlap+glove-6b-50d``."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...errors import SpecError
from ..options import KeepsConfig, ModelOptions
from ..protocol import pair_similarity
from ..registry import register_model


class MixedOptions(ModelOptions):
    """No options of its own: the parts carry theirs."""


class MixedModel(KeepsConfig):
    def __init__(self, parts: list, weights: list[float] | None = None, *, options: MixedOptions | None = None):
        if len(parts) < 2:
            raise SpecError("mixed: needs at least two models, e.g. mixed:overlap+glove-6b-50d")
        self.parts = parts
        self.weights = weights or [1.0] * len(parts)
        # the weights are not a spec option (the spec sums with weight 1 each); the Python API may set them
        self._config = (options or MixedOptions()).to_model_config(
            "+".join(p.config.display for p in parts),
            facts={"weights": ",".join(f"{w:g}" for w in self.weights)}, children=tuple(p.config for p in parts))

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        total = np.zeros(len(texts_a), dtype=np.float64)
        for w, part in zip(self.weights, self.parts):
            total += w * pair_similarity(part, texts_a, texts_b)
        return total


@register_model("mixed", 1, "sum of several models' pair scores (cosine for encoders)",
                ("mixed:SPEC+SPEC[+SPEC…]  (inner specs without ',' options; use aliases)",), options=MixedOptions)
def _mixed(resolved, builder):
    if not resolved.arg or "+" not in resolved.arg:
        raise SpecError(f"{resolved.spec}: write mixed:A+B, e.g. mixed:overlap+all-MiniLM-L6-v2")
    return MixedModel([builder(part) for part in resolved.arg.split("+")], options=resolved.options)
