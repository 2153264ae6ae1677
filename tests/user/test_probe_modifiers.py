"""The probe kind against scikit-learn's logistic regression; the modifiers kind against the built-in
modifier tests on the same phrases given as a file."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from compeval.models.protocol import as_model
from compeval.models.families.toy import HashBagEncoder
from compeval.tasks.registry import get_tasks
from compeval.seeds import derive

from .helpers import NOUNS, VERBS, BigramEncoder, loaded, score_of, write_csv


def _labelled(n_per_verb: int = 24) -> list[dict]:
    """Who did it: the label is the agent's noun class (a person from the first or second half)."""
    rng = np.random.default_rng(1)
    rows = []
    for v in VERBS[:3]:
        for k in range(n_per_verb):
            a, b = rng.choice(NOUNS, 2, replace=False)
            rows.append({"sentence": f"the {a} {v} the {b} {'today' if k % 2 else 'yesterday'}",
                         "agent": "early" if NOUNS.index(a) < 5 else "late", "verb": v,
                         "part": "test" if k % 4 == 0 else "train"})
    return list({r["sentence"]: r for r in rows}.values())


def _sklearn_predictions(enc, train_texts, y_train, test_texts, seed):
    """scikit-learn's own pipeline: standardise, then L2 logistic regression with C by 5-fold stratified CV."""
    model = make_pipeline(StandardScaler(), LogisticRegressionCV(
        Cs=list(np.logspace(-3, 3, 7)), cv=StratifiedKFold(5, shuffle=True, random_state=seed), l1_ratios=(0.0,),
        scoring="accuracy", tol=1e-8, max_iter=10_000, use_legacy_attributes=False))
    model.fit(enc.encode(train_texts), y_train)
    return model.predict(enc.encode(test_texts))


def test_probe_matches_scikit_learn_logistic_regression(tmp_path):
    rows = _labelled()
    path = write_csv(tmp_path / "agents.csv", rows)
    enc = BigramEncoder(dim=16)
    out = loaded(f"probe:{path},text=sentence,label=agent,partition=part").evaluate(as_model(enc), seed=2)
    train = [r for r in rows if r["part"] == "train"]
    test = [r for r in rows if r["part"] == "test"]
    expected = _sklearn_predictions(enc, [r["sentence"] for r in train], [r["agent"] == "late" for r in train],
                                    [r["sentence"] for r in test], seed=derive(2, "probing-head", 0))  # its CV folds
    truth = np.array([r["agent"] == "late" for r in test])
    got = out.predictions["pred_logreg"].to_numpy(dtype=bool)
    assert (got == expected).mean() >= 0.95  # torch L-BFGS against scikit-learn: the same fit, up to ties in C
    s = score_of(out, "logreg", "accuracy")
    assert s.n == len(test) and s.value == pytest.approx((got == truth).mean())
    assert abs(s.value - (expected == truth).mean()) <= 1 / len(test) + 1e-9
    assert score_of(out, "control-gaussian", "accuracy").value is not None


def test_probe_with_several_labels_is_one_probe_per_label(tmp_path):
    rows = _labelled(30)
    path = write_csv(tmp_path / "verbs.csv", rows)
    out = loaded(f"probe:{path},text=sentence,label=verb,test_fraction=0.3,split_seed=4").evaluate(
        as_model(BigramEncoder(dim=16)), seed=0)
    assert {s.subset for s in out.scores} >= {f"logreg/verb={v}" for v in VERBS[:3]}
    # each one-vs-rest probe is scored on the same held-out sentences
    preds = out.predictions
    assert preds.groupby("choice").size().nunique() == 1
    for v in VERBS[:3]:
        part = preds[preds["choice"] == f"verb={v}"]
        acc = (part["pred_logreg"].astype(bool) == (part["gold_label"] == v)).mean()
        assert score_of(out, f"logreg/verb={v}", "accuracy").value == pytest.approx(acc)


def test_probe_too_few_rows_per_label_is_one_line(tmp_path):
    rows = _labelled(6)
    path = write_csv(tmp_path / "small.csv", rows)
    with pytest.raises(Exception) as exc:
        get_tasks(f"probe:{path},text=sentence,label=verb,partition=part")
    assert "5-fold cross-validation needs 5 of each" in str(exc.value) and str(path) in str(exc.value)


@pytest.fixture(scope="module")
def builtin_phrases(tmp_path_factory):
    """Every phrase of the built-in modifier suite, written as a user's file with its adjective types."""
    from compeval.tasks.modifiers.stimuli import PAD, build_stimuli
    from compeval.tasks.modifiers.words import ADJECTIVES, NOUNS as MOD_NOUNS

    s = build_stimuli()
    rows = [{"adjective": ADJECTIVES[a1].word, "adjective2": "" if a2 == PAD else ADJECTIVES[a2].word,
             "noun": MOD_NOUNS[n][0], "type": ADJECTIVES[a1].type_short}
            for a1, a2, n in zip(s.adj1.tolist(), s.adj2.tolist(), s.noun.tolist())]
    return write_csv(tmp_path_factory.mktemp("mod") / "phrases.csv", rows)


def test_modifiers_file_gives_the_built_in_tests_numbers(builtin_phrases):
    model = as_model(HashBagEncoder(dim=16))
    user = loaded(f"modifiers:{builtin_phrases},adjective2=adjective2,category=type,n_resamples=40")
    mine = {(s.subset, s.metric): s for s in user.evaluate(model, seed=5).scores}
    compared = 0
    for name, test in (("modifiers-test1", "test1"), ("modifiers-test2", "test2"), ("modifiers-test3", "test3")):
        builtin = loaded(f"{name},n_resamples=40")
        for s in builtin.evaluate(model, seed=5).scores:
            if s.metric.startswith("types_kw"):  # the built-in tests' adjective-type test; user lists lack it
                continue
            m = mine[(s.subset, s.metric)]
            assert (m.value, m.ci_low, m.ci_high, m.n) == pytest.approx((s.value, s.ci_low, s.ci_high, s.n)), (name, s)
            compared += 1
    assert compared > 100
    assert mine[("all", "test1_macro")].n == 44_652


def test_modifiers_an_adjective_needs_one_category(tmp_path):
    rows = [{"adjective": "red", "noun": "car", "category": "S-I"}, {"adjective": "fake", "noun": "car", "category": "P"},
            {"adjective": "red", "noun": "gun", "category": "P"}]
    path = write_csv(tmp_path / "mods.csv", rows)
    with pytest.raises(Exception) as exc:
        get_tasks(f"modifiers:{path}")
    assert str(exc.value) == (f"{path}:4: column 'category': adjective 'red' has category 'P' here and 'S-I' on "
                              "line 2; give each adjective one category")
