"""Every built-in model passes ``check_model``; models that break the protocol fail it."""
import numpy as np
import pytest

from compeval.cache import EmbeddingCache
from compeval.models.conformance import ConformanceError, check_model, check_rejects_empty_text
from compeval.models.protocol import ModelConfig
from compeval.models.registry import load_model

FAST = ["hashbag", "random,dim=16", "glove-6b-50d", "glove-6b-50d,op=mult", "glove-6b-50d,op=conv",
        "glove-6b-50d,op=tensor", "glove-6b-50d,tok=sts3k", "glove-6b-50d,tok=montague", "overlap",
        "overlap,lemmatizer=none", "mixed:overlap+glove-6b-50d"]
SLOW = ["all-MiniLM-L6-v2", "hf:all-MiniLM-L6-v2,layer=0,pool=cls", "hf:all-MiniLM-L6-v2,pool=mean-nospecial"]


@pytest.mark.parametrize("spec", FAST)
def test_builtin_models_conform(spec):
    check_model(load_model(spec), rebuild=lambda: load_model(spec))
    check_rejects_empty_text(load_model(spec, cache=EmbeddingCache(None)))


@pytest.mark.integration
@pytest.mark.parametrize("spec", SLOW)
def test_packaged_transformers_conform(spec):
    check_model(load_model(spec), rebuild=lambda: load_model(spec))


def test_precomputed_models_conform(tmp_path):
    from compeval.models.conformance import CHECK_TEXTS

    vec = tmp_path / "vectors.tsv"
    vec.write_text("".join(f"{t}\t{len(t)} {t.count(' ')} 1\n" for t in set(CHECK_TEXTS)))
    check_model(load_model(f"precomputed:{vec}"))
    scores = tmp_path / "scores.txt"
    scores.write_text("0.1\n0.5\n0.9\n0.2\n")
    check_model(load_model(f"precomputed:{scores}"))


class ShufflingEncoder:
    """Returns rows sorted by text: a classic bug that corrupts every score silently."""

    config = ModelConfig(family="bug.v1", name="shuffler")

    def encode(self, texts):
        return np.array([[len(t), t.count("a")] for t in sorted(texts)], dtype=np.float32)


class BatchDependentEncoder:
    config = ModelConfig(family="bug.v1", name="batchdep")

    def encode(self, texts):
        return np.array([[len(t), len(texts)] for t in texts], dtype=np.float32)


@pytest.mark.parametrize("bad, rule", [(ShufflingEncoder(), "order|deterministic"),
                                       (BatchDependentEncoder(), "batch-invariance")])
def test_broken_models_fail(bad, rule):
    with pytest.raises(ConformanceError, match=rule):
        check_model(bad)
