"""``CachedModel`` wraps any model (as mteb's CachedEmbeddingWrapper): deduplicated texts served from memory,
then disk; only the missing ones encoded, validated, and counted."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .. import threads
from ..errors import InputTextError, ModelOutputError
from ..models.protocol import Closeable, Loadable, ModelConfig, WrapsModel, can_encode, can_score_pairs
from .store import EmbeddingStore, default_cache_dir


@dataclass
class CacheStats:
    """Counters of one model configuration over a run."""

    requested: int = 0  # texts asked for, repeats included
    unique: int = 0  # distinct texts asked for
    from_memory: int = 0
    from_disk: int = 0
    encoded: int = 0  # texts actually sent to the model
    encode_seconds: float = 0.0
    pairs_requested: int = 0
    pairs_scored: int = 0
    score_seconds: float = 0.0
    _seen: set = field(default_factory=set, repr=False)

    def as_dict(self) -> dict[str, float]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


class EmbeddingCache:
    """Where cached vectors live (``directory=None``: memory only), plus per-configuration stats."""

    def __init__(self, directory: Path | str | None = "default", batch_size: int = 256):
        if directory == "default":
            directory = default_cache_dir()
        self.directory = Path(directory) if directory is not None else None
        self.batch_size = batch_size
        self.stats: dict[str, CacheStats] = {}
        self._stores: dict[str, EmbeddingStore] = {}

    def store(self, config_id: str) -> EmbeddingStore | None:
        if self.directory is None:
            return None
        if config_id not in self._stores:
            self._stores[config_id] = EmbeddingStore(self.directory, config_id)
        return self._stores[config_id]

    def stats_for(self, config_id: str) -> CacheStats:
        return self.stats.setdefault(config_id, CacheStats())

    def wrap(self, model: Any) -> "CachedModel":
        return model if isinstance(model, CachedModel) else CachedModel(model, self)

    def totals(self) -> CacheStats:
        total = CacheStats()
        for s in self.stats.values():
            for k, v in s.as_dict().items():
                setattr(total, k, getattr(total, k) + v)
        return total

    def close(self) -> None:
        for s in self._stores.values():
            s.close()
        self._stores.clear()


def check_texts(texts: Sequence[str]) -> None:
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise InputTextError(f"text #{i} is {type(t).__name__}, not str: {t!r}")
        if not t.strip():
            raise InputTextError(
                f"text #{i} is empty or whitespace only; a model cannot encode it (fix or drop that item)"
            )


def check_vectors(vectors: np.ndarray, texts: Sequence[str], config: ModelConfig) -> np.ndarray:
    vectors = np.asarray(vectors)
    if vectors.ndim != 2 or vectors.shape[0] != len(texts) or (len(texts) and vectors.shape[1] == 0):
        raise ModelOutputError(
            f"model {config.display} returned shape {vectors.shape} for {len(texts)} texts; expected (n_texts, dim)"
            " with dim ≥ 1"
        )
    if np.iscomplexobj(vectors) or not (np.issubdtype(vectors.dtype, np.floating)
                                        or np.issubdtype(vectors.dtype, np.integer)):
        raise ModelOutputError(f"model {config.display} returned {vectors.dtype} vectors; expected real numbers")
    bad = ~np.isfinite(vectors).all(axis=1)
    if bad.any():
        idx = np.flatnonzero(bad)
        examples = "; ".join(repr(texts[i][:60]) for i in idx[:3])
        raise ModelOutputError(
            f"model {config.display} returned NaN or infinite vectors for {len(idx)} of {len(texts)} texts "
            f"(e.g. {examples}); nothing was cached"
        )
    return vectors.astype(np.float32, copy=False)


def _chunks(n: int, first: int, largest: int):
    """(start, stop) pairs over ``n`` items: ``first`` items, then doubling up to ``largest`` a chunk."""
    i, size = 0, max(first, 1)
    while i < n:
        yield i, min(i + size, n)
        i += size
        size = min(size * 2, max(largest, 1))


class CachedModel(WrapsModel):
    """A model behind the embedding cache. Follows the same protocol as the model it wraps."""

    def __init__(self, model: Any, cache: EmbeddingCache):
        self.model = model
        self.cache = cache
        self._memory: dict[str, np.ndarray] = {}
        self._pair_memory: dict[tuple[str, str], float] = {}
        self.on_progress: Callable[[int, int], None] | None = None

    @property
    def config(self) -> ModelConfig:
        return self.model.config

    @property
    def inner(self) -> Any:
        """The wrapped model (``compeval.models.protocol.CachedEncoder``)."""
        return self.model

    def load(self) -> None:
        """Load the wrapped model's weights now, if it loads lazily."""
        if isinstance(self.model, Loadable):
            self.model.load()

    def close(self) -> None:
        """Let the wrapped model release its weights; the vectors stay (other models may share them)."""
        if isinstance(self.model, Closeable):
            self.model.close()

    @property
    def stats(self) -> CacheStats:
        return self.cache.stats_for(self.config.id)

    def _disk(self) -> EmbeddingStore | None:
        """The disk store, or None for a model whose vectors must not outlive the run: a Python object
        identified only by its output (``cross_run_reuse`` False; models/fingerprint.py)."""
        return self.cache.store(self.config.id) if getattr(self.model, "cross_run_reuse", True) else None

    @property
    def cacheable(self) -> bool:
        """False for models whose outputs depend on the whole batch (they declare ``cacheable = False``)."""
        return getattr(self.model, "cacheable", True)

    # Attributes of the wrapped model (its vectors, options…) read through the wrapper.
    def __getattr__(self, name: str):
        if name in {"encode", "score_pairs"}:
            raise AttributeError(name)
        return getattr(self.model, name)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        threads.check_model_call()
        if not can_encode(self.model):
            raise TypeError(f"model {self.config.display} scores pairs only; it has no encode()")
        texts = list(texts)
        check_texts(texts)
        if not self.cacheable:
            # Wrappers whose parts are cached themselves (their counters speak for them).
            return check_vectors(self.model.encode(texts), texts, self.config)
        stats = self.stats
        stats.requested += len(texts)
        unique = list(dict.fromkeys(texts))
        new_unique = [t for t in unique if t not in stats._seen]
        stats._seen.update(new_unique)
        stats.unique += len(new_unique)

        missing = [t for t in unique if t not in self._memory]
        stats.from_memory += len(unique) - len(missing)  # includes what warm() brought from disk
        store = self._disk()
        if store is not None and missing:
            found = store.get_vectors(missing)
            self._memory.update(found)
            stats.from_disk += len(found)
            missing = [t for t in missing if t not in found]
        if missing:
            # Longest first: similar lengths share a batch, so padding (transformers) is minimal.
            order = sorted(missing, key=len, reverse=True)
            bs = max(self.cache.batch_size, 1)
            done = 0
            if self.on_progress:
                self.on_progress(0, len(order))
            # One batch first, then doubling chunks up to 16 batches: progress shows from the first batch.
            # The chunks are the same whether progress is shown or not, because a transformer's batches (and
            # so its float rounding) follow them: the vectors must not depend on the display.
            largest = max(bs * 16, 1024)
            for i, j in _chunks(len(order), bs, largest):
                part = order[i:j]
                t0 = time.perf_counter()
                vecs = check_vectors(self.model.encode(part), part, self.config)
                stats.encode_seconds += time.perf_counter() - t0
                stats.encoded += len(part)
                if store is not None:
                    store.put_vectors(part, vecs)
                self._memory.update(zip(part, vecs))
                done += len(part)
                if self.on_progress:
                    self.on_progress(done, len(order))
        return np.stack([self._memory[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)

    def warm(self, texts: Sequence[str]) -> list[str]:
        """Pull whatever the disk holds for ``texts`` into memory; return the texts still to encode."""
        unique = [t for t in dict.fromkeys(texts) if t not in self._memory]
        store = self._disk() if self.cacheable else None
        if store is not None and unique:
            found = store.get_vectors(unique)
            self._memory.update(found)
            self.stats.from_disk += len(found)
        return [t for t in unique if t not in self._memory]

    def prime(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Hold vectors another process encoded (a Ray encode stage) in memory, without counting them."""
        if self.cacheable:
            self._memory.update(zip(texts, vectors))

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        threads.check_model_call()
        if not can_score_pairs(self.model):
            raise TypeError(f"model {self.config.display} has no score_pairs()")
        a, b = list(texts_a), list(texts_b)
        if len(a) != len(b):
            raise ValueError(f"score_pairs got {len(a)} and {len(b)} texts")
        check_texts(a)
        check_texts(b)
        stats = self.stats
        stats.pairs_requested += len(a)
        if not self.cacheable:
            # Order-dependent models (precomputed score files, data-set-level normalisation).
            t0 = time.perf_counter()
            out = np.asarray(self.model.score_pairs(a, b), dtype=np.float64)
            stats.score_seconds += time.perf_counter() - t0
            stats.pairs_scored += len(a)
            self._check_scores(out, len(a))
            return out
        pairs = list(zip(a, b))
        unique = list(dict.fromkeys(pairs))
        missing = [p for p in unique if p not in self._pair_memory]
        store = self._disk()
        if store is not None and missing:
            found = store.get_pairs(missing)
            self._pair_memory.update(found)
            missing = [p for p in missing if p not in found]
        if missing:
            t0 = time.perf_counter()
            scores = np.asarray(
                self.model.score_pairs([p[0] for p in missing], [p[1] for p in missing]), dtype=np.float64
            )
            stats.score_seconds += time.perf_counter() - t0
            self._check_scores(scores, len(missing))
            stats.pairs_scored += len(missing)
            if store is not None:
                store.put_pairs(missing, scores)
            self._pair_memory.update(zip(missing, scores.tolist()))
        return np.array([self._pair_memory[p] for p in pairs], dtype=np.float64)

    def _check_scores(self, scores: np.ndarray, n: int) -> None:
        if scores.shape != (n,):
            raise ModelOutputError(f"model {self.config.display} returned {scores.shape} scores for {n} pairs")
        if np.isinf(scores).any():
            raise ModelOutputError(f"model {self.config.display} returned infinite pair scores")
