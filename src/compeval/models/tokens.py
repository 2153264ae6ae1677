"""Word-level vectors from transformer families (``TokenEncoder.encode_tokens``), for tasks that read
tokens in context (lexcomp): every hidden state, embeddings included, subword pieces mean-pooled to
words through the fast tokenizer's ``word_ids``."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import ModelCapabilityError

TOKEN_BATCH = 32  # sentences per forward pass (fixed: padding differs with the batch, vectors must not)


def pool_pieces(hidden: np.ndarray, word_ids: Sequence[int | None], n_words: int) -> np.ndarray:
    """Mean of the subword pieces of each word: ``hidden`` is (n_layers, n_pieces, dim); returns
    (n_words, n_layers, dim). Special tokens (word id None) are left out; a word with no piece
    (truncated away) gets zeros."""
    n_layers, _, dim = hidden.shape
    out = np.zeros((n_words, n_layers, dim), dtype=np.float32)
    count = np.zeros(n_words, dtype=np.float32)
    for p, w in enumerate(word_ids):
        if w is not None and w < n_words:
            out[w] += hidden[:, p]
            count[w] += 1
    return out / np.maximum(count, 1)[:, None, None]


def hidden_state_tokens(torch: Any, tokenizer: Any, net: Any, sentences: list[list[str]], max_length: int,
                        name: str) -> list[np.ndarray]:
    """All hidden layers of ``net`` for pre-tokenised sentences, pieces pooled to words; shortest first."""
    if not getattr(tokenizer, "is_fast", False):
        raise ModelCapabilityError(f"{name}: token-level vectors need a fast tokenizer (word_ids)")
    device = next(net.parameters()).device
    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
    out: list[np.ndarray | None] = [None] * len(sentences)
    with torch.inference_mode():
        for b in range(0, len(order), TOKEN_BATCH):
            idx = order[b : b + TOKEN_BATCH]
            batch = [list(sentences[i]) for i in idx]
            enc = tokenizer(batch, is_split_into_words=True, padding=True, truncation=True,
                            max_length=max_length, return_tensors="pt")
            hidden = net(**enc.to(device), output_hidden_states=True).hidden_states
            hidden = torch.stack(hidden, dim=1).float().cpu().numpy()  # B, L, P, D
            for j, i in enumerate(idx):
                out[i] = pool_pieces(hidden[j], enc.word_ids(j), len(sentences[i]))
    return out  # type: ignore[return-value]
