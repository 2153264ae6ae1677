"""Classifiers, controls and the shared evaluation on hand-built vectors."""
from __future__ import annotations

import numpy as np
import pytest

from compeval.cache.cached import EmbeddingCache
from compeval.errors import SpecError
from compeval.models.families.toy import TableEncoder
from compeval.tasks.probing.classifiers import fit_predict, gaussian_vectors, one_hots, random_one_hots
from compeval.tasks.probing.ettinger2018 import Ettinger2018Options
from compeval.tasks.probing.evaluation import (ClassifierOptions, ProbeProblem, ProbeSplit, accuracy_score,
                                               staged_problems, parse_classifiers)
from compeval.training.settings import AdamSettings, LBFGSSettings

FAST = dict(mlp=AdamSettings(max_iter=200), logreg=LBFGSSettings())


def _separable(n: int, dim: int, seed: int):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2 == 0
    x = rng.standard_normal((n, dim)) * 0.3
    x[:, 0] += np.where(y, 2.0, -2.0)
    return x, y


@pytest.mark.parametrize("name", ["logreg", "mlp"])
def test_classifiers_learn_a_separable_problem_and_not_noise(name):
    x, y = _separable(300, 8, 0)
    xt, yt = _separable(200, 8, 1)
    pred, info = fit_predict(name, x, y, xt, seed=0, **FAST)
    assert np.mean(pred == yt) > 0.97
    noise = np.random.default_rng(2).standard_normal(x.shape)
    pred, _ = fit_predict(name, noise, y, np.random.default_rng(3).standard_normal(xt.shape), seed=0, **FAST)
    assert abs(np.mean(pred == yt) - 0.5) < 0.12
    assert ("C" in info) if name == "logreg" else info["n_iter"] >= 1


def test_classifiers_are_seeded():
    x, y = _separable(200, 6, 0)
    a, _ = fit_predict("mlp", x, y, x, seed=5, **FAST)
    b, _ = fit_predict("mlp", x, y, x, seed=5, **FAST)
    assert (a == b).all()


def test_single_class_training_is_refused():
    with pytest.raises(ValueError, match="single class"):
        fit_predict("logreg", np.zeros((4, 2)), np.ones(4, bool), np.zeros((1, 2)), seed=0, **FAST)


def test_one_hot_layout():
    vocab = ["a", "b", "c"]
    out = one_hots([("a", "c"), ("b", "b")], vocab)
    assert out.tolist() == [[1, 0, 0, 0, 0, 1], [0, 1, 0, 0, 1, 0]]
    rand = random_one_hots(50, 2, 3, np.random.default_rng(0))
    assert rand.shape == (50, 6) and (rand[:, :3].sum(1) == 1).all() and (rand[:, 3:].sum(1) == 1).all()


def test_gaussian_control_gives_one_vector_per_distinct_text():
    table = gaussian_vectors(["x", "y", "x"], 4, np.random.default_rng(0))
    assert set(table) == {"x", "y"} and table["x"].shape == (4,)
    assert not np.allclose(table["x"], table["y"])


def test_accuracy_score_bootstraps_over_units():
    correct = np.array([1, 1, 0, 0, 1, 1, 1, 1], dtype=bool)
    units = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    score = accuracy_score("logreg", correct, units, seed=0)
    assert score.value == 0.75 and score.n == 8 and score.details["bootstrap_units"] == 4
    # unit means are 1, 0, 1, 1: any resample mean is a multiple of 1/4
    assert score.ci_low * 4 == round(score.ci_low * 4) and score.ci_low <= 0.75 <= score.ci_high


def test_parse_classifiers():
    assert parse_classifiers("logreg+mlp", "logreg") == ["logreg", "mlp"]
    with pytest.raises(SpecError, match="must include"):
        parse_classifiers("mlp", "logreg")
    with pytest.raises(SpecError, match="choose from"):
        parse_classifiers("svm", "logreg")


def _problem(choice: str, n: int, offset: int, probe_depends: bool):
    """Sentences whose vector's first coordinate says TRUE/FALSE; with ``probe_depends`` the label is
    flipped for probe 'b', so only a classifier that reads the probe can succeed."""
    texts, probes, labels, table = [], [], [], {}
    for split, start in (("train", 0), ("test", n)):
        for k in range(start, start + n):
            signal = k % 2 == 0
            probe = "b" if (k // 2) % 2 else "a"
            text = f"{choice} sentence {offset + k}"
            table[text] = [1.0 if signal else -1.0, (k * 7919 % 13) / 13.0]
            texts.append(text)
            probes.append((probe,))
            labels.append(signal != (probe_depends and probe == "b"))
    def split(lo, hi):
        return ProbeSplit(texts[lo:hi], probes[lo:hi], np.array(labels[lo:hi]), np.arange(hi - lo) // 2)
    return ProbeProblem(choice, split(0, n), split(n, 2 * n)), table


def test_staged_problems_with_hand_built_vectors():
    p1, t1 = _problem("one", 200, 0, probe_depends=False)
    p2, t2 = _problem("two", 200, 1000, probe_depends=False)
    cache = EmbeddingCache(None)
    model = cache.wrap(TableEncoder({**t1, **t2}))
    out = staged_problems(model, [p1, p2], seed=0, options=ClassifierOptions.build("t", {"classifiers": "logreg"}),
                            device="cpu", probe_features=False, probe_vocab=["a", "b"])()
    scores = {s.subset: s for s in out.scores}
    assert scores["logreg"].value == 1.0 and scores["logreg"].n == 400
    assert scores["logreg/one"].value == 1.0 and scores["logreg/two"].n == 200
    assert abs(scores["control-gaussian"].value - 0.5) < 0.12
    assert scores["control-random-probe"].value is None  # no probe features, nothing to randomise
    assert out.counts["n_train"] == {"one": 200, "two": 200}
    assert len(out.predictions) == 400 and set(out.predictions["choice"]) == {"one", "two"}
    # every distinct sentence encoded exactly once
    stats = cache.stats_for(model.config.id)
    assert stats.encoded == len(t1) + len(t2) and stats.requested == len(t1) + len(t2)


def test_probe_features_let_the_mlp_use_the_probe_and_the_random_probe_control_cannot():
    problem, table = _problem("only", 400, 0, probe_depends=True)
    model = EmbeddingCache(None).wrap(TableEncoder(table))
    options = Ettinger2018Options.build("t", {"classifiers": "mlp", "mlp_max_iter": "400"})
    out = staged_problems(model, [problem], seed=0, options=options, device="cpu", probe_features=True,
                          probe_vocab=["a", "b"])()
    scores = {s.subset: s.value for s in out.scores}
    assert scores["mlp"] > 0.95
    assert abs(scores["control-random-probe"] - 0.5) < 0.1
    assert abs(scores["control-gaussian"] - 0.5) < 0.1
