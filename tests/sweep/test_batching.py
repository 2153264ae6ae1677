"""Token-budget batching: batches stay under the budget, vectors do not depend on the batching (a real
tiny transformer against one-text batches), an out-of-memory error halves the budget and retries."""
from __future__ import annotations

import numpy as np
import pytest

from compeval.errors import CompevalError
from compeval.models.batching import Budget, batches, encode_budgeted, is_out_of_memory

torch = pytest.importorskip("torch")

TEXTS = ["the dog runs near the river", "a cat", "the big red house near a small river . the dog sleeps",
         "claim", "find the query : the small house", "red", "the cat sleeps near a big dog , the river runs"]


def test_batches_respect_the_budget_and_cover_every_text_once():
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 40, size=200).tolist()
    order = sorted(range(200), key=lambda i: -lengths[i])
    for budget in (1, 7, 40, 64, 500):
        got = batches(lengths, order, budget, None)
        assert sorted(i for b in got for i in b) == list(range(200))
        for b in got:
            assert len(b) == 1 or len(b) * max(lengths[i] for i in b) <= budget
    capped = batches(lengths, order, 10**6, 16)
    assert max(len(b) for b in capped) == 16


def _hf_model(folder, **kw):
    from compeval.models.families.hf import HFModel

    return HFModel(str(folder), **kw)


@pytest.mark.parametrize("pooling", ["mean", "cls", "last"])
def test_vectors_do_not_depend_on_the_batching(tiny_bert, pooling):
    """Sorted, budgeted batches give the vectors of one-text batches (padding is masked out)."""
    model = _hf_model(tiny_bert, pooling=pooling)
    model.budget = Budget(12)  # a few texts per batch, mixed lengths padded together
    batched = model.encode(TEXTS)
    one = _hf_model(tiny_bert, pooling=pooling)
    one.budget = Budget(10**6, max_texts=1)
    single = one.encode(TEXTS)
    np.testing.assert_allclose(batched, single, rtol=1e-5, atol=1e-6)
    assert model.config.settings["max_batch_tokens"] == 12  # a run setting …
    assert "max_batch_tokens" not in model.config.params and model.config.id == one.config.id  # … not identity


def test_sentence_transformers_vectors_do_not_depend_on_the_batching(tiny_sbert):
    from compeval.models.families.sentence_transformers import SentenceTransformerModel

    a = SentenceTransformerModel(str(tiny_sbert))
    a.budget = Budget(16)
    b = SentenceTransformerModel(str(tiny_sbert))
    b.budget = Budget(10**6, max_texts=1)
    np.testing.assert_allclose(a.encode(TEXTS), b.encode(TEXTS), rtol=1e-5, atol=1e-6)


def _oom_above(limit, calls):
    def forward(batch):
        calls.append(len(batch))
        if len(batch) * max(len(t) for t in batch) > limit:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return np.array([[len(t), sum(map(ord, t))] for t in batch], dtype=np.float32)
    return forward


def test_out_of_memory_halves_the_budget_and_retries():
    texts = [w * n for n, w in zip(range(1, 30), "abcdefghijklmnopqrstuvwxyzabc")]
    lengths = [len(t) for t in texts]
    calls: list[int] = []
    budget = Budget(1000)
    got = encode_budgeted(texts, lengths, _oom_above(100, calls), budget)
    want = np.array([[len(t), sum(map(ord, t))] for t in texts], dtype=np.float32)
    np.testing.assert_array_equal(got, want)  # every text once, in the caller's order
    assert budget.backoffs == 4 and budget.tokens == 1000 // 16  # 1000 → 500 → 250 → 125 → 62 fits
    assert budget.settings() == {"max_batch_tokens": 62, "oom_backoffs": 4}
    calls.clear()
    encode_budgeted(texts, lengths, _oom_above(100, calls), budget)  # the halved budget is kept
    assert budget.backoffs == 4


def test_a_text_that_does_not_fit_alone_and_other_errors_propagate():
    with pytest.raises(torch.OutOfMemoryError):
        encode_budgeted(["x" * 50], [50], _oom_above(10, []), Budget(1000))

    def broken(batch):
        raise ValueError("not memory")
    with pytest.raises(ValueError):
        encode_budgeted(["a", "b"], [1, 1], broken, Budget(1000))
    assert is_out_of_memory(RuntimeError("CUDA out of memory. Tried to allocate 20 MiB"))
    assert not is_out_of_memory(MemoryError()) and not is_out_of_memory(RuntimeError("shape mismatch"))
    with pytest.raises(CompevalError, match="max-batch-tokens"):
        Budget(0)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    from hub_fakes import build_bert

    return build_bert(tmp_path_factory.mktemp("bert") / "bert", seed=3)


@pytest.fixture(scope="module")
def tiny_sbert(tmp_path_factory):
    from hub_fakes import build_sbert

    return build_sbert(tmp_path_factory.mktemp("sbert") / "st")
