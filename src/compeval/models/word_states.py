"""Word-level vectors from transformer families (``TokenEncoder.encode_tokens``, for lexcomp): every hidden
state, pieces mean-pooled to words. The words run as one text and each piece goes to the word its
characters come from (offset mapping): tokenising words alone would be wrong for byte-level BPE, where a
word inside a sentence is a piece with its leading space ("Ġused"), not "us" + "ed"."""
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


def running_text(words: Sequence[str]) -> tuple[str, np.ndarray, np.ndarray]:
    """The words joined by single spaces, and each word's character start and end in it."""
    lengths = np.fromiter((len(w) for w in words), dtype=np.int64, count=len(words))
    starts = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]]).astype(np.int64) if len(words) else lengths
    return " ".join(words), starts, starts + lengths


def offsets_to_words(offsets: Sequence[tuple[int, int]], special: Sequence[int], starts: np.ndarray,
                     ends: np.ndarray) -> list[int | None]:
    """The word of each piece of a running text: the word holding the piece's last character; a piece
    with no character of any word (a lone space marker such as "Ġ" or "▁", or an empty span) goes to
    the word after it, whose pre-token it opens. Special tokens and padding get None."""
    out: list[int | None] = []
    for (s, e), sp in zip(offsets, special):
        if sp:
            out.append(None)
            continue
        w = int(np.searchsorted(starts, e - 1, side="right")) - 1 if e > s else -1
        if w >= 0 and e - 1 < ends[w]:
            out.append(w)
            continue
        nxt = int(np.searchsorted(starts, s, side="left"))
        out.append(nxt if nxt < len(starts) else None)
    return out


def word_ids_of(tokenizer: Any, sentences: Sequence[Sequence[str]], max_length: int, name: str,
                return_tensors: str | None = "pt") -> tuple[Any, list[list[int | None]]]:
    """Tokenise the running texts of pre-tokenised sentences: the tokenizer's encoding (padded, truncated
    to ``max_length``) and, per sentence, the word of each piece (None for special tokens)."""
    if not getattr(tokenizer, "is_fast", False):
        raise ModelCapabilityError(f"{name}: token-level vectors need a fast tokenizer (character offsets)")
    texts, spans = [], []
    for words in sentences:
        text, starts, ends = running_text(words)
        texts.append(text)
        spans.append((starts, ends))
    side = tokenizer.padding_side
    tokenizer.padding_side = "right"  # a causal model's words keep their positions (left padding shifts them)
    try:
        enc = tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors=return_tensors,
                        return_offsets_mapping=True, return_special_tokens_mask=True)
    finally:
        tokenizer.padding_side = side
    offsets = enc.pop("offset_mapping")
    special = enc.pop("special_tokens_mask")
    word_ids = [offsets_to_words([tuple(map(int, o)) for o in offsets[j]], [int(x) for x in special[j]], *spans[j])
                for j in range(len(texts))]
    return enc, word_ids


def hidden_state_tokens(torch: Any, tokenizer: Any, net: Any, sentences: list[list[str]], max_length: int,
                        name: str) -> list[np.ndarray]:
    """All hidden layers of ``net`` for pre-tokenised sentences, pieces pooled to words; shortest first."""
    if not getattr(tokenizer, "is_fast", False):
        raise ModelCapabilityError(f"{name}: token-level vectors need a fast tokenizer (character offsets)")
    device = next(net.parameters()).device
    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
    out: list[np.ndarray | None] = [None] * len(sentences)
    with torch.inference_mode():
        for b in range(0, len(order), TOKEN_BATCH):
            idx = order[b : b + TOKEN_BATCH]
            enc, word_ids = word_ids_of(tokenizer, [sentences[i] for i in idx], max_length, name)
            hidden = net(**enc.to(device), output_hidden_states=True).hidden_states
            hidden = torch.stack(hidden, dim=1).float().cpu().numpy()  # B, L, P, D
            for j, i in enumerate(idx):
                out[i] = pool_pieces(hidden[j], word_ids[j], len(sentences[i]))
    return out  # type: ignore[return-value]
