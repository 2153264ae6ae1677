"""How tasks turn a model into numbers: pair similarity and embeddings through the model protocol,
cosines from the metrics (the same functions models use)."""
from ..vectors import cosine_rows, unit_rows
from ..models.protocol import can_encode, can_encode_tokens, can_score_pairs, embed, pair_similarity

__all__ = ["can_encode", "can_encode_tokens", "can_score_pairs", "cosine_rows", "embed", "pair_similarity",
           "unit_rows"]
