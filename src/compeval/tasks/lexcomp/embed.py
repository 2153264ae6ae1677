"""Embed: word-level token vectors from any model that can give them, computed once per sentence.

``TokenEncoder`` is a small optional protocol: ``encode_tokens(sentences)`` returns one
``(n_words, n_layers, dim)`` array per pre-tokenised sentence. Adapters give it to the static model
(one "layer": each word's vector) and the Hugging Face model (every hidden state, embeddings
included, subword pieces mean-pooled to words through the fast tokenizer's ``word_ids``). A model
that already has ``encode_tokens`` is used as it is.

Vectors are cached on disk per model config id in ``<cache>/lexcomp_tokens/<id>.sqlite`` (float16,
keyed by the sentence's words joined by a tab), so each unique sentence is encoded once per model.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from ...errors import CompevalError


@runtime_checkable
class TokenEncoder(Protocol):
    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]: ...


class StaticTokens:
    """Each word's vector (lower-cased; unknown words by their clean sub-tokens, else zeros)."""

    def __init__(self, model: Any):
        self.model = model
        self.config = model.config

    def _word(self, w: str) -> np.ndarray:
        vecs = self.model.vectors
        key = w.lower()
        if key in vecs.index:
            return vecs.matrix[vecs.index[key]]
        m = self.model.word_matrix(w)
        return m.mean(0) if len(m) else np.zeros(vecs.dim, dtype=np.float32)

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]:
        return [np.asarray([self._word(w) for w in s], dtype=np.float32).reshape(len(s), 1, -1)
                for s in sentences]


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


class HFTokens:
    """All hidden layers of a Hugging Face model, pieces pooled to words."""

    def __init__(self, model: Any, batch_size: int = 32):
        self.model = model
        self.config = model.config
        self.batch_size = batch_size

    def _parts(self):
        """(torch, fast tokenizer, transformer, max length)."""
        torch, tokenizer, net = self.model._load()
        return torch, tokenizer, net, getattr(self.model, "max_length", 512)

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]:
        torch, tokenizer, net, max_length = self._parts()
        if not getattr(tokenizer, "is_fast", False):
            raise CompevalError(f"{self.config.name}: token-level vectors need a fast tokenizer (word_ids)")
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        out: list[np.ndarray | None] = [None] * len(sentences)
        with torch.inference_mode():
            for b in range(0, len(order), self.batch_size):
                idx = order[b : b + self.batch_size]
                batch = [list(sentences[i]) for i in idx]
                enc = tokenizer(batch, is_split_into_words=True, padding=True, truncation=True,
                                max_length=max_length, return_tensors="pt")
                hidden = net(**enc, output_hidden_states=True).hidden_states
                hidden = torch.stack(hidden, dim=1).float().numpy()  # B, L, P, D
                for j, i in enumerate(idx):
                    out[i] = pool_pieces(hidden[j], enc.word_ids(j), len(sentences[i]))
        return out  # type: ignore[return-value]


class SentenceTransformerTokens(HFTokens):
    """The transformer inside a sentence-transformers model (its first module), read like ``HFTokens``:
    so ``all-MiniLM-L6-v2`` runs lexcomp under the same name as everywhere else."""

    def _parts(self):
        import torch

        first = self.model.model[0]  # sentence_transformers.models.Transformer
        return torch, first.tokenizer, first.auto_model.eval(), first.max_seq_length or 512


def token_encoder(model: Any) -> Any:
    """The TokenEncoder for a (possibly cache-wrapped) model, or a clear error."""
    from ...models.hf import HFModel
    from ...models.sentence_transformers import SentenceTransformerModel
    from ...models.static import StaticModel

    inner = model if isinstance(model, SentenceTransformerModel) else getattr(model, "model", model)
    if callable(getattr(inner, "encode_tokens", None)):
        return inner
    if isinstance(inner, StaticModel):
        return StaticTokens(inner)
    if isinstance(inner, HFModel):
        return HFTokens(inner)
    if isinstance(inner, SentenceTransformerModel):
        return SentenceTransformerTokens(inner)
    raise CompevalError(
        f"model {inner.config.display if hasattr(inner, 'config') else inner!r} gives no token-level vectors; "
        "lexcomp needs static word vectors, a Hugging Face model, or a model with encode_tokens()"
    )


def _key(words: Sequence[str]) -> str:
    return "\t".join(words)


class TokenCache:
    """Token vectors of one model on disk (SQLite, float16) plus an in-memory copy for the run."""

    _memory: dict[str, dict[str, np.ndarray]] = {}

    def __init__(self, encoder: Any, directory: Path | None = None):
        self.encoder = encoder
        self.id = encoder.config.id
        self.mem = self._memory.setdefault(self.id, {})
        self.conn = None
        if directory is not None:
            path = Path(directory) / "lexcomp_tokens" / f"{self.id}.sqlite"
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(path, timeout=60)
            self.conn.execute("CREATE TABLE IF NOT EXISTS tok (k TEXT PRIMARY KEY, n INTEGER, l INTEGER, "
                              "d INTEGER, v BLOB)")
        self.encoded = 0
        self.from_disk = 0

    def get(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        keys = [_key(s) for s in sentences]
        missing = list(dict.fromkeys(k for k in keys if k not in self.mem))
        if missing and self.conn is not None:
            for i in range(0, len(missing), 500):
                chunk = missing[i : i + 500]
                q = f"SELECT k, n, l, d, v FROM tok WHERE k IN ({','.join('?' * len(chunk))})"
                for k, n, l, d, v in self.conn.execute(q, chunk):
                    self.mem[k] = np.frombuffer(v, dtype=np.float16).reshape(n, l, d)
                    self.from_disk += 1
            missing = [k for k in missing if k not in self.mem]
        if missing:
            vecs = self.encoder.encode_tokens([k.split("\t") if k else [] for k in missing])
            rows = []
            for k, v in zip(missing, vecs):
                v = np.asarray(v, dtype=np.float32)
                if v.ndim == 2:
                    v = v[:, None, :]
                v16 = v.astype(np.float16)
                self.mem[k] = v16
                rows.append((k, v.shape[0], v.shape[1], v.shape[2], v16.tobytes()))
            self.encoded += len(missing)
            if self.conn is not None:
                with self.conn:
                    self.conn.executemany("INSERT OR REPLACE INTO tok VALUES (?, ?, ?, ?, ?)", rows)
        return [self.mem[k] for k in keys]

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


