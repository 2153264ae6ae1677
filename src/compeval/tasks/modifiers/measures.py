"""The measures as vectorised numpy over one embedding matrix, addressed by string-id arrays.

``d(x, y) = 1 - cos(x, y)``; a zero vector has cosine 0 with everything (d = 1), as in the authors' torch code."""
from __future__ import annotations

import numpy as np

from .stimuli import PAD

CHUNK = 8192  # rows gathered at a time: bounds memory (8192 × dim × 2 × 8 bytes) whatever the data size


class Embedded:
    """An embedding matrix plus a map from global string id to its row."""

    def __init__(self, matrix: np.ndarray, string_ids: np.ndarray, n_strings: int):
        self.matrix = np.asarray(matrix)
        self.norms = np.sqrt(np.einsum("ij,ij->i", self.matrix, self.matrix, dtype=np.float64))
        self.row_of = np.full(n_strings, PAD, np.int64)
        self.row_of[string_ids] = np.arange(len(string_ids))

    @property
    def zero_rows(self) -> np.ndarray:
        return self.norms == 0

    def dist(self, ids_a: np.ndarray, ids_b: np.ndarray) -> np.ndarray:
        """Elementwise d(a, b) for two broadcastable id arrays; NaN where either id is PAD."""
        ids_a, ids_b = np.broadcast_arrays(np.asarray(ids_a), np.asarray(ids_b))
        out = np.full(ids_a.shape, np.nan)
        flat_a, flat_b, flat_out = ids_a.ravel(), ids_b.ravel(), out.reshape(-1)
        valid = np.flatnonzero((flat_a != PAD) & (flat_b != PAD))
        ra, rb = self.row_of[flat_a[valid]], self.row_of[flat_b[valid]]
        if (ra == PAD).any() or (rb == PAD).any():
            raise KeyError("a string id was not encoded; the task asked for fewer texts than it uses")
        for start in range(0, len(valid), CHUNK):
            a, b = ra[start:start + CHUNK], rb[start:start + CHUNK]
            dots = np.einsum("ij,ij->i", self.matrix[a].astype(np.float64), self.matrix[b].astype(np.float64))
            den = self.norms[a] * self.norms[b]
            with np.errstate(invalid="ignore", divide="ignore"):
                cos = np.where(den > 0, dots / den, 0.0)
            flat_out[valid[start:start + CHUNK]] = 1.0 - cos
        return out


#: The word pairs (j, k), j < k, of a phrase of up to three words: Eq. 3's d(t_j, t_k).
WORD_PAIRS = ((0, 1), (0, 2), (1, 2))


def word_pair_distances(emb: Embedded, words: np.ndarray) -> np.ndarray:
    """(P, 3) d(t_j, t_k) for every pair of single words of each phrase (the paper's Eq. 3); NaN for a pair with
    an absent slot (an AN phrase has the one pair (adjective, noun), the same comparison as its one split)."""
    j, k = np.array(WORD_PAIRS).T
    return emb.dist(words[:, j], words[:, k])


def drop_ge1(d: np.ndarray) -> np.ndarray:
    """The authors' 2024 filter: distances ≥ 1 (padding, or real cosine ≤ 0) are ignored (NaN)."""
    return np.where(d < 1, d, np.nan)


def intersectivity(d_phrase_words: np.ndarray, d_parts: np.ndarray, ignore_ge1: bool = False) -> np.ndarray:
    """Test 1 per phrase: every d(p, w_k) ≤ every d(part, other part); ties pass; inputs (P, k), NaN if absent.

    With ``ignore_ge1`` a comparison with a distance ≥ 1 is dropped; a phrase with nothing left passes (authors' code).
    """
    if ignore_ge1:
        d_phrase_words, d_parts = drop_ge1(d_phrase_words), drop_ge1(d_parts)
    worst_word = np.where(np.isnan(d_phrase_words), -np.inf, d_phrase_words).max(axis=1)
    best_part = np.where(np.isnan(d_parts), np.inf, d_parts).min(axis=1)
    return worst_word <= best_part


def all_compared_ignored(d_phrase_words: np.ndarray, d_parts: np.ndarray) -> np.ndarray:
    """Phrases whose every comparison the ≥ 1 filter drops (they pass vacuously)."""
    return (~(d_phrase_words < 1)).all(axis=1) | (~(d_parts < 1)).all(axis=1)


def pair_intersectivity(emb: Embedded, an_grid: np.ndarray) -> dict[str, np.ndarray]:
    """Test 2: d(a1 n, a1 n') < d(a2 n, a2 n') for nouns n < n' and ordered adjectives a1 ≠ a2.

    ``an_grid`` is (A, N) string ids of "adj noun"; flat arrays over all A·(A-1)·N·(N-1)/2 cases."""
    n_adj, n_noun = an_grid.shape
    n1, n2 = np.triu_indices(n_noun, k=1)
    d = emb.dist(an_grid[:, n1], an_grid[:, n2])  # (A, pairs): how far one adjective's two phrases are
    holds = d[:, None, :] < d[None, :, :]  # (a1, a2, pairs)
    cases = pair_cases(an_grid)
    a1, a2, pair = cases.pop("adj1"), cases.pop("adj2"), cases.pop("pair")
    return {"adj1": a1, "adj2": a2, **cases, "d1": d[a1, pair], "d2": d[a2, pair], "holds": holds[a1, a2, pair]}


def pair_cases(an_grid: np.ndarray) -> dict[str, np.ndarray]:
    """Test 2's cases in order: adjective indices ``adj1`` != ``adj2``, noun indices ``noun1`` < ``noun2``,
    and ``pair``, the index of (noun1, noun2) among the noun pairs (what the distances are indexed by)."""
    n_adj, n_noun = an_grid.shape
    n1, n2 = np.triu_indices(n_noun, k=1)
    a1, a2, pair = np.nonzero(~np.eye(n_adj, dtype=bool)[:, :, None] & np.ones(len(n1), bool))
    return {"adj1": a1, "adj2": a2, "noun1": n1[pair], "noun2": n2[pair], "pair": pair}


def non_subsectivity(d_phrase_adj: np.ndarray, d_phrase_noun: np.ndarray) -> np.ndarray:
    """Test 3: d(p, a) < d(p, n), strict (a tie fails)."""
    return d_phrase_adj < d_phrase_noun


def adjective_weights(d_phrase_words: np.ndarray, n_adjectives: np.ndarray) -> np.ndarray:
    """d(p, a_i) / Σ_k d(p, w_k) per adjective slot over the phrase's real words; (P, 2), NaN where undefined.

    The authors' code also adds 1.0 per padded slot of its batch, which depends on batching: not reproduced."""
    total = np.nansum(d_phrase_words, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = d_phrase_words[:, :2] / total[:, None]
    w[n_adjectives == 1, 1] = np.nan
    w[total == 0] = np.nan
    return w
