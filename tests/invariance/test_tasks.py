"""The two tasks end to end with tiny deterministic encoders and hand-built files."""
import json

import numpy as np
import pytest

from compeval.data.registry import DataContext
from compeval.models.families.toy import HashBagEncoder, TableEncoder
from compeval.tasks.invariance.generator import generate_qa_items, generate_relation_groups
from compeval.tasks.invariance.tasks import InvarianceQA, InvarianceRelation
from compeval.tasks.registry import get_tasks


@pytest.fixture
def context(tmp_path):
    return DataContext(data_dir=tmp_path)


def score(out, subset, metric):
    return next(s for s in out.scores if s.subset == subset and s.metric == metric)


def test_suite_lists_both_tasks():
    names = sorted(t.name for t in get_tasks("invariance"))
    assert names == ["invariance-qa", "invariance-relation"]


def test_relation_auc_from_user_file_matches_hand_value(tmp_path, context):
    # Group A/B: E = {e1, e2}, NE = {n}. H = (e1,e2), (e2,e1): cos = 0.6 both.
    # L = (e1,n): 0.8, (e2,n): 0.48 − 0.48 = 0. AUC = P(0.6 > L) = (0 + 1 + 0 + 1) / 4 = 0.5.
    table = {"e1": [1, 0], "e2": [0.6, 0.8], "n": [0.8, -0.6]}
    # Group C/D: E = {f1, f2}, NE = {m}: H cos 1, L cos 0 → AUC 1.
    table.update({"f1": [0, 1], "f2": [0, 2], "m": [1, 0]})
    lines = [{"relation": "r", "entities": ["A", "B"], "text": t, "label": lab, "tag": tag}
             for t, lab, tag in [("e1", "E", "active"), ("e2", "E", "passive"), ("n", "NE", "reversed")]]
    lines += [{"relation": "r", "entities": ["C", "D"], "text": t, "label": lab}
              for t, lab in [("f1", "E"), ("f2", "E"), ("m", "NE")]]
    path = tmp_path / "rel.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    task = InvarianceRelation(path=str(path), bootstrap=200)
    task.load(context)
    out = task.evaluate(TableEncoder(table), seed=0)
    assert score(out, "group=r:A>B", "auc").value == pytest.approx(0.5)
    assert score(out, "group=r:C>D", "auc").value == pytest.approx(1.0)
    assert score(out, "all", "auc").value == pytest.approx(0.75)
    # only group A/B has tags: H restricted to pairs ending in a passive = (e1, e2): 0.6 vs {0.8, 0.0} → 0.5
    assert score(out, "construction=passive", "auc").value == pytest.approx(0.5)
    assert score(out, "construction=passive", "auc").n == 1
    assert out.counts["H_pairs"] == 4 and out.counts["L_pairs"] == 4
    assert len(out.counts["data_sha256"]) == 64


def oracle_table(groups):
    """Vectors that know the answer: every E sentence of a group on one axis, every NE on another."""
    table = {}
    for k, g in enumerate(groups):
        for s in g.sentences:
            v = np.zeros(2 * len(groups))
            v[2 * k + (s.label == "NE")] = 1.0
            table[s.text] = v
    return table


def test_generated_relation_oracle_scores_one_and_bag_of_words_cannot_see_roles(context):
    task = InvarianceRelation(pairs_per_relation=2, bootstrap=100)
    task.load(context)
    oracle = task.evaluate(TableEncoder(oracle_table(task.groups)), seed=0)
    assert score(oracle, "all", "auc").value == pytest.approx(1.0)
    # An order-blind bag of words gives a reversed sentence the same vector as its original,
    # so it cannot rank positives above role-reversed negatives.
    bag = task.evaluate(HashBagEncoder(dim=64), seed=0)
    assert score(bag, "negative=reversed", "auc").value < 0.55
    assert score(bag, "negative=other_relation", "auc").value > score(bag, "negative=reversed", "auc").value
    assert out_subsets(bag) >= {"all", "construction=passive", "construction=dative_shift", "negative=negated"}


def out_subsets(out):
    return {s.subset for s in out.scores}


def test_generated_counts_are_recorded(context):
    task = InvarianceRelation(pairs_per_relation=1, negatives_per_type=2, generator_seed=5, bootstrap=50)
    task.load(context)
    out = task.evaluate(HashBagEncoder(), seed=1)
    groups = generate_relation_groups(1, 1, 2, seed=5)
    assert out.counts["entity_pairs"] == len(groups)
    assert out.counts["sentences"] == sum(len(g.sentences) for g in groups)
    assert out.counts["generator_seed"] == 5
    assert sum(v for k, v in out.counts["sentences_by_tag"].items() if k.startswith("NE:")) == 6 * len(groups)


def test_qa_hand_built_ranks_with_ties(tmp_path, context):
    # q1: answer cos 1, others 0 and 1 (tie) → rank 0.5 of 2 → 0.75. q2: answer below both → 0.
    table = {"q1": [1, 0], "a1": [1, 0], "x1": [0, 1], "y1": [2, 0],
             "q2": [0, 1], "a2": [1, 0], "x2": [0, 1], "y2": [0, 3]}
    lines = [{"id": "q1", "question": "q1", "document": ["x1", "a1", "y1"], "answer": 1,
              "tags": ["negated", "passive", "reversed"]},
             {"id": "q2", "question": "q2", "document": ["a2", "x2", "y2"], "answer": 0}]
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    task = InvarianceQA(path=str(path), subset_model="", bootstrap=100)
    task.load(context)
    out = task.evaluate(TableEncoder(table), seed=0)
    np.testing.assert_allclose(out.predictions["normalised_rank"], [0.75, 0.0])
    assert score(out, "all", "normalised_rank").value == pytest.approx(0.375)
    # vs the reversed distractor alone, q1's answer ties → 0.5; vs negated alone it wins → 1
    assert score(out, "negative=reversed", "normalised_rank").value == pytest.approx(0.5)
    assert score(out, "negative=negated", "normalised_rank").value == pytest.approx(1.0)
    assert score(out, "answer=passive", "normalised_rank").n == 1
    assert "subset" not in out_subsets(out)


def test_qa_subset_uses_the_baseline_model(context):
    # hashbag as the baseline: the subset is the questions it does not rank perfectly
    task = InvarianceQA(pairs_per_relation=1, subset_model="hashbag", bootstrap=50)
    task.load(context)
    out = task.evaluate(HashBagEncoder(), seed=0)
    perfect = out.predictions["normalised_rank"].to_numpy() == 1.0
    assert out.counts["subset_questions"] == int((~perfect).sum())
    assert score(out, "subset", "normalised_rank").value == pytest.approx(
        out.predictions.loc[~perfect, "normalised_rank"].mean())


def test_qa_oracle_ranks_every_answer_first(context):
    task = InvarianceQA(pairs_per_relation=1, subset_model="", bootstrap=50)
    task.load(context)
    table = {}
    for k, item in enumerate(task.items):
        table[item.question] = np.eye(len(task.items) + 1)[k]
        for i, s in enumerate(item.document):
            table.setdefault(s, np.eye(len(task.items) + 1)[-1])
        table[item.document[item.answer]] = np.eye(len(task.items) + 1)[k]
    out = task.evaluate(TableEncoder(table), seed=0)
    assert score(out, "all", "normalised_rank").value == 1.0
    assert len(task.items) == len(generate_qa_items(1, 2, seed=0))


@pytest.mark.integration
def test_lemma_overlap_cannot_tell_reversed_roles(context):
    from compeval.cache.cached import EmbeddingCache
    from compeval.models.registry import load_model

    task = InvarianceRelation(pairs_per_relation=2, bootstrap=100)
    task.load(context)
    out = task.evaluate(load_model("overlap", cache=EmbeddingCache(None)), seed=0)
    assert abs(score(out, "negative=reversed", "auc").value - 0.5) < 0.1
    assert score(out, "negative=other_relation", "auc").value > 0.7


def _reread(predictions):
    import io

    import pandas as pd

    from compeval.results.store import predictions_jsonl

    return pd.read_json(io.StringIO(predictions_jsonl(predictions)), lines=True, dtype=False)


def test_relation_recomputes_from_its_pair_scores_and_sees_an_edit(context):
    from compeval.errors import DataError

    task = InvarianceRelation(pairs_per_relation=1, bootstrap=50)
    task.load(context)
    out = task.evaluate(HashBagEncoder(), seed=3)
    preds = _reread(out.predictions)
    assert task.score_predictions(preds, seed=3) == out.scores
    # one negative pair raised above every positive of its entity pair: that pair's AUC, and the mean, drop
    group = out.predictions["group"].iloc[0]
    rows = out.predictions.index[(out.predictions["group"] == group) & (out.predictions["kind"] == "L")]
    edited = preds.copy()
    edited.loc[rows[0], "score"] = 2.0
    again = {(s.subset, s.metric): s.value for s in task.score_predictions(edited, seed=3)}
    assert again[("group=" + group, "auc")] < score(out, "group=" + group, "auc").value
    assert again[("all", "auc")] < score(out, "all", "auc").value
    with pytest.raises(DataError, match="text_a"):
        task.score_predictions(preds.assign(text_a=preds["text_a"][::-1].to_numpy()), seed=3)


def test_qa_reranks_its_candidate_scores(context):
    from compeval.errors import DataError

    task = InvarianceQA(pairs_per_relation=1, subset_model="hashbag", bootstrap=50)
    task.load(context)
    out = task.evaluate(HashBagEncoder(), seed=2)
    preds = _reread(out.predictions)
    assert task.score_predictions(preds, seed=2) == out.scores
    # the first question's answer made the document's lowest score: its rank, not the stored one, is used
    item = task.items[0]
    edited = preds.copy()
    edited.at[0, "candidate_scores"] = [0.0 if i == item.answer else 5.0 for i in range(len(item.document))]
    ranks = task._ranks(np.array([v for c in edited["candidate_scores"] for v in c], dtype=float))
    assert ranks[0] == 0.0 and out.predictions["normalised_rank"].iloc[0] > 0.0
    again = {(s.subset, s.metric): s.value for s in task.score_predictions(edited, seed=2)}
    assert again[("all", "normalised_rank")] == pytest.approx(np.nanmean(ranks))
    with pytest.raises(DataError, match="candidate_scores"):
        task.score_predictions(preds.drop(columns="candidate_scores"), seed=2)


def test_qa_resolves_its_subset_model_once_in_a_run(tmp_path, monkeypatch):
    """Built (and checked) once: the task keeps the resolved baseline, and its load builds from it."""
    import compeval.models.registry as registry
    from compeval.runner import run

    resolved = []
    real = registry.resolve_model
    monkeypatch.setattr(registry, "resolve_model", lambda text, *a, **k: (resolved.append(str(text)),
                                                                           real(text, *a, **k))[1])
    summary = run(["random,dim=8"], ["invariance-qa,pairs_per_relation=1,subset_model=hashbag,bootstrap=40"],
                  tmp_path / "out", cache_dir=None, report=False)
    assert [o.status for o in summary.outcomes] == ["done"]
    assert resolved.count("hashbag") == 1
    (written,) = (tmp_path / "out").glob("*/invariance-qa*.json")
    assert json.loads(written.read_text())["counts"]["subset_questions"] is not None  # the baseline was used
