"""The pairs and triplets kinds against independent computations (scipy's Spearman, a numpy count)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from compeval.models.protocol import as_model

from .helpers import BigramEncoder, cosines, loaded, pair_rows, role_rows, score_of, write_csv, write_jsonl


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl"])
def test_pairs_match_scipy_spearman_per_subset(tmp_path, suffix):
    rows = pair_rows(40)
    path = tmp_path / f"pairs{suffix}"
    write_jsonl(path, rows) if suffix == ".jsonl" else write_csv(path, rows, "\t" if suffix == ".tsv" else ",")
    task = loaded(f"pairs:{path},a=s1,b=s2,score=gold,subset=kind,bootstrap=200")
    enc = BigramEncoder()
    out = task.evaluate(as_model(enc), seed=0)
    sims = cosines(enc, [r["s1"] for r in rows], [r["s2"] for r in rows])
    gold = np.array([float(r["gold"]) for r in rows])
    kinds = np.array([r["kind"] for r in rows])
    for subset, keep in (("all", np.ones(len(rows), bool)), ("non", kinds == "non"), ("adv", kinds == "adv")):
        s = score_of(out, subset, "spearman")
        assert s.n == keep.sum()
        assert s.value == pytest.approx(spearmanr(sims[keep], gold[keep]).statistic, abs=1e-6)
        assert s.ci_low <= s.value <= s.ci_high
        assert score_of(out, subset, "pearson").value == pytest.approx(pearsonr(sims[keep], gold[keep]).statistic,
                                                                     abs=1e-6)
    gap = score_of(out, "non_minus_adv", "spearman").value
    assert gap == pytest.approx(score_of(out, "non", "spearman").value - score_of(out, "adv", "spearman").value)
    assert np.allclose(out.predictions["score"], sims, atol=1e-6)  # per-pair predictions
    assert task.metadata.suite == "user" and task.metadata.subsets[:3] == ("all", "non", "adv")


def test_pairs_norm_option_changes_the_vectors_as_sts_does(tmp_path):
    rows = pair_rows(30)
    path = write_csv(tmp_path / "p.csv", rows)
    enc = BigramEncoder()
    out = loaded(f"pairs:{path},a=s1,b=s2,score=gold,norm=center,bootstrap=50").evaluate(as_model(enc), seed=0)
    a, b = enc.encode([r["s1"] for r in rows]).astype(float), enc.encode([r["s2"] for r in rows]).astype(float)
    a, b = a - a.mean(0), b - b.mean(0)
    sims = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert score_of(out, "all", "spearman").value == pytest.approx(
        spearmanr(sims, [float(r["gold"]) for r in rows]).statistic, abs=1e-6)


def test_triplet_accuracy_is_a_numpy_count_per_category(tmp_path):
    rows = role_rows()[::3]
    for k, r in enumerate(rows):  # the expected order flipped on some rows, so some answers are right
        if k % 3 == 0:
            r["paraphrase"], r["swap"] = r["swap"], r["paraphrase"]
    path = write_csv(tmp_path / "roles.csv", rows)
    task = loaded(f"triplets:{path},anchor=sentence,closer=paraphrase,farther=swap,category=verb,bootstrap=300")
    enc = BigramEncoder()
    out = task.evaluate(as_model(enc), seed=0)
    anchors = [r["sentence"] for r in rows]
    right = cosines(enc, anchors, [r["paraphrase"] for r in rows]) > cosines(enc, anchors, [r["swap"] for r in rows])
    verbs = np.array([r["verb"] for r in rows])
    assert 0 < right.mean() < 1  # the check means something: some right, some wrong
    s = score_of(out, "all", "accuracy")
    assert (s.value, s.n) == (pytest.approx(right.sum() / len(rows)), len(rows))
    assert s.ci_low < s.value < s.ci_high
    for v in np.unique(verbs):
        assert score_of(out, v, "accuracy").value == pytest.approx(right[verbs == v].mean())
    assert out.predictions["correct"].tolist() == right.astype(float).tolist()


def test_a_ranked_list_counts_every_ordered_candidate_pair(tmp_path):
    rows = [{"anchor": r["sentence"], "c1": r["sentence"] + " today", "c2": r["paraphrase"], "c3": r["swap"]}
            for r in role_rows(25)]
    path = write_jsonl(tmp_path / "ranked.jsonl", rows)
    enc = BigramEncoder()
    out = loaded(f"triplets:{path},ranked=c1|c2|c3,bootstrap=50").evaluate(as_model(enc), seed=0)
    anchors = [r["anchor"] for r in rows]
    sims = np.stack([cosines(enc, anchors, [r[c] for r in rows]) for c in ("c1", "c2", "c3")], axis=1)
    per_item = ((sims[:, 0] > sims[:, 1]).astype(int) + (sims[:, 0] > sims[:, 2]) + (sims[:, 1] > sims[:, 2])) / 3
    assert score_of(out, "all", "accuracy").value == pytest.approx(per_item.mean())


def test_an_order_blind_model_gets_no_role_reversal_right(tmp_path):
    """A bag of words cannot tell the swap from the sentence: their similarity is 1, above the paraphrase's."""
    from compeval.models.families.toy import HashBagEncoder

    path = write_csv(tmp_path / "roles.csv", role_rows(30))
    out = loaded(f"triplets:{path},anchor=sentence,closer=paraphrase,farther=swap,bootstrap=50").evaluate(
        as_model(HashBagEncoder()), seed=0)
    assert score_of(out, "all", "accuracy").value == 0.0
    assert np.allclose(out.predictions["sim_1"], 1.0, atol=1e-6)


def test_triplet_scores_are_recomputed_from_the_written_similarities_and_follow_an_edit(tmp_path):
    import io

    import pandas as pd

    from compeval.errors import DataError
    from compeval.results.store import predictions_jsonl

    path = write_csv(tmp_path / "roles.csv", role_rows()[::3])
    task = loaded(f"triplets:{path},anchor=sentence,closer=paraphrase,farther=swap,bootstrap=60")
    out = task.evaluate(as_model(BigramEncoder()), seed=2)
    pred = pd.read_json(io.StringIO(predictions_jsonl(out.predictions)), lines=True, dtype=False)
    again = task.score_predictions(pred, seed=2)
    assert [(s.subset, s.value, s.ci_low, s.ci_high, s.n) for s in again] == [
        (s.subset, s.value, s.ci_low, s.ci_high, s.n) for s in out.scores]
    # swapping one item's two similarities turns its answer around: accuracy moves by exactly 1/n
    edited = pred.copy()
    edited.loc[0, ["sim_0", "sim_1"]] = pred.loc[0, ["sim_1", "sim_0"]].to_numpy()
    moved = next(s for s in task.score_predictions(edited, seed=2) if s.subset == "all")
    assert abs(moved.value - score_of(out, "all", "accuracy").value) == pytest.approx(1 / len(pred))
    with pytest.raises(DataError, match="anchor differ"):
        task.score_predictions(edited.assign(anchor=edited["anchor"][::-1].to_numpy()), seed=2)
