"""Integration tests with the packaged models (GloVe 6B 50d, all-MiniLM-L6-v2)."""
import numpy as np
import pytest

from compeval.cache import EmbeddingCache
from compeval.data.registry import DataContext
from compeval.models.registry import load_model
from compeval.tasks.registry import get_tasks

pytestmark = pytest.mark.integration


def _evaluate(spec, task, data_dir):
    (t,) = get_tasks(task)
    t.load(DataContext(data_dir))
    return t, t.evaluate(load_model(spec, cache=EmbeddingCache(None)), seed=0)


def _spearman(out, subset):
    return next(s.value for s in out.scores if s.subset == subset and s.metric == "spearman")


def test_mean_glove_shows_the_papers_structure_blindness(data_dir):
    _, out = _evaluate("glove-6b-50d,tok=sts3k", "sts3k,bootstrap=200", data_dir)
    assert _spearman(out, "non") > 0.6
    assert _spearman(out, "adv") < 0
    gap = next(s for s in out.scores if s.subset == "non_minus_adv")
    assert gap.ci_low > 0.5


def test_minilm_stsb_matches_sentence_transformers_evaluator(data_dir):
    from sentence_transformers.evaluation import EmbeddingSimilarityEvaluator

    t, out = _evaluate("all-MiniLM-L6-v2", "stsb,bootstrap=40", data_dir)
    model = load_model("all-MiniLM-L6-v2").model
    evaluator = EmbeddingSimilarityEvaluator(t.pairs["sentence_1"].tolist(), t.pairs["sentence_2"].tolist(),
                                             (t.pairs["gold"] / 5).tolist(), main_similarity="cosine",
                                             name="stsb-test")
    theirs = evaluator(model)
    key = next(k for k in theirs if k.endswith("spearman_cosine"))
    assert _spearman(out, "all") == pytest.approx(theirs[key], abs=1e-6)
