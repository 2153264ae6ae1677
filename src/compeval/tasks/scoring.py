"""How tasks turn a model into numbers: pair similarity and embeddings through the model protocol.

``norm`` is a task option, not a model one: why in ``compeval.models.normalize``."""
from __future__ import annotations

from typing import Any, Literal, Sequence

import numpy as np

from ..errors import ModelCapabilityError
from ..models.protocol import can_encode, can_encode_tokens, can_score_pairs, embed, pair_similarity
from ..vectors import NORMALISERS, cosine_rows, unit_rows
from .options import TaskOptions

__all__ = ["ComparisonOptions", "Norm", "can_encode", "can_encode_tokens", "can_score_pairs", "compare",
           "cosine_rows", "embed", "pair_similarity", "unit_rows"]

#: ``none`` (the model's own pair scores, or the cosine of its vectors) or a key of ``NORMALISERS``.
Norm = Literal[("none", *NORMALISERS)]  # type: ignore[valid-type]


class ComparisonOptions(TaskOptions):
    """Options of every task whose score is the similarity of text pairs."""

    # per-dimension normalisation of each side's vectors over the pairs before the cosine (STS3k's
    # ``_norml``): center reproduces the STS3k paper's tables, zscore follows its text
    norm: Norm = "none"


def compare(model: Any, texts_a: Sequence[str], texts_b: Sequence[str], norm: str = "none") -> np.ndarray:
    """Similarity of each (a, b) pair: ``pair_similarity``, or with ``norm`` each side's ``encode`` vectors
    (a repeated text once per pair) normalised over the pairs in float64 before the row cosine."""
    if norm == "none":
        return pair_similarity(model, texts_a, texts_b)
    normalise = NORMALISERS[norm]
    if not can_encode(model):
        raise ModelCapabilityError(f"model {model.config.display} only scores pairs, and norm={norm} normalises "
                                   "vectors over the pairs; give an encoder or norm=none")
    a = model.encode(list(texts_a))
    b = model.encode(list(texts_b))
    return np.asarray(cosine_rows(normalise(a), normalise(b)), dtype=np.float64)
