"""The embedding cache: each text encoded once, persistence, validation, multi-process safety."""
import multiprocessing as mp

import numpy as np
import pytest

from compeval.cache import EmbeddingCache
from compeval.errors import InputTextError, ModelOutputError
from compeval.models.protocol import ModelConfig
from compeval.models.families.toy import HashBagEncoder


class CountingEncoder(HashBagEncoder):
    def __init__(self):
        super().__init__(dim=8)
        self.seen: list[str] = []

    def encode(self, texts):
        self.seen.extend(texts)
        return super().encode(texts)


def test_each_unique_text_encoded_once_then_served_from_disk(tmp_path):
    enc = CountingEncoder()
    c1 = EmbeddingCache(tmp_path)
    m = c1.wrap(enc)
    first = m.encode(["a b", "c d", "a b"])
    m.encode(["c d", "e f"])
    assert sorted(enc.seen) == ["a b", "c d", "e f"]
    assert m.stats.encoded == 3 and m.stats.requested == 5 and m.stats.unique == 3
    c1.close()

    enc2 = CountingEncoder()
    m2 = EmbeddingCache(tmp_path).wrap(enc2)
    again = m2.encode(["a b", "c d", "a b"])
    assert enc2.seen == [] and m2.stats.from_disk == 2
    assert np.array_equal(first, again)


def test_bypass_keeps_memory_only(tmp_path):
    m = EmbeddingCache(None).wrap(CountingEncoder())
    m.encode(["x"])
    assert not any(tmp_path.iterdir())
    assert m.stats.encoded == 1


def test_empty_text_is_a_clear_error(cache):
    m = cache.wrap(CountingEncoder())
    with pytest.raises(InputTextError, match="text #1 is empty"):
        m.encode(["fine", "   "])


class NaNEncoder:
    config = ModelConfig(family="nan.v1", name="nan-model")

    def encode(self, texts):
        out = np.ones((len(texts), 3), np.float32)
        out[-1, 0] = np.nan
        return out


def test_nan_vectors_are_a_clear_error_and_not_cached(tmp_path):
    cache = EmbeddingCache(tmp_path)
    m = cache.wrap(NaNEncoder())
    with pytest.raises(ModelOutputError, match=r"NaN or infinite vectors for 1 of 2 texts.*'bad'"):
        m.encode(["good", "bad"])
    assert len(cache.store(m.config.id)) == 0


def _writer(path, start):
    cache = EmbeddingCache(path)
    m = cache.wrap(HashBagEncoder(dim=8))
    m.encode([f"text {i}" for i in range(start, start + 300)])
    cache.close()


def test_processes_can_share_one_cache(tmp_path):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(tmp_path, s)) for s in (0, 150, 200)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    cache = EmbeddingCache(tmp_path)
    m = cache.wrap(HashBagEncoder(dim=8))
    vecs = m.encode([f"text {i}" for i in range(500)])
    assert m.stats.encoded == 0 and m.stats.from_disk == 500
    assert np.allclose(vecs, HashBagEncoder(dim=8).encode([f"text {i}" for i in range(500)]))


class _BatchSensitive:
    """Vectors that depend on which texts share an encode call (as padding does in a transformer)."""

    def __init__(self):
        self.config = ModelConfig(family="batch-sensitive", name="batch-sensitive")

    def encode(self, texts):
        longest = max(len(t) for t in texts)
        return np.array([[len(t), longest] for t in texts], dtype=np.float32)


def test_vectors_do_not_depend_on_whether_progress_is_shown(tmp_path):
    texts = [f"text {'x' * (i % 37)} {i}" for i in range(3000)]
    shown = EmbeddingCache(None, batch_size=32).wrap(_BatchSensitive())
    seen = []
    shown.on_progress = lambda done, total: seen.append(done)
    quiet = EmbeddingCache(None, batch_size=32).wrap(_BatchSensitive())
    assert np.array_equal(shown.encode(texts), quiet.encode(texts))
    assert seen[:3] == [0, 32, 96]  # progress from the first batch
