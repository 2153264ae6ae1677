"""How tasks turn a model into numbers (re-exported from ``compeval.similarity``, shared with models)."""
from ..models.protocol import can_encode, can_score_pairs
from ..similarity import cosine_rows, embed, pair_similarity, unit_rows

__all__ = ["can_encode", "can_score_pairs", "cosine_rows", "embed", "pair_similarity", "unit_rows"]
