"""The registered probing tasks, end to end on tiny deterministic encoders (and, marked, real models)."""
from __future__ import annotations

import pytest

from compeval.cache.cached import EmbeddingCache
from compeval.data.registry import DataContext
from compeval.errors import SpecError
from compeval.models.families.toy import HashBagEncoder
from compeval.tasks.registry import get_tasks, suites

SMALL = "n_train=120,n_test=60,classifiers=logreg"
GENERATED = ["probe-has-x", "probe-has-human", "probe-x-as-agent", "probe-agent-of-verb", "probe-negation-scope"]
ETTINGER = [f"ettinger2018-{t}" for t in ("sr", "neg", "cont1", "cont2", "order")]


def _run(spec: str, model, seed: int = 0):
    task = get_tasks(spec)[0]
    task.load(DataContext(data_dir=None))
    return task, task.evaluate(model, seed=seed)


def test_the_suite_lists_all_tasks():
    assert set(suites()["probing"]) == set(GENERATED + ETTINGER)


@pytest.mark.parametrize("name", GENERATED)
def test_generated_task_runs_and_reports_every_subset(name):
    cache = EmbeddingCache(None)
    model = cache.wrap(HashBagEncoder(dim=16))
    task, out = _run(f"{name},{SMALL}", model)
    subsets = {s.subset for s in out.scores}
    assert {"logreg", "control-gaussian", "control-random-probe"} <= subsets
    main = next(s for s in out.scores if s.subset == "logreg")
    n_choices = len(out.counts["choices"])
    assert main.metric == "accuracy" and main.n == 60 * n_choices == out.n_items
    assert main.ci_low <= main.value <= main.ci_high
    assert set(out.predictions.columns) >= {"choice", "text", "label", "pred_logreg", "pred_control-gaussian"}
    # every distinct sentence is encoded once, in one request
    stats = cache.stats_for(model.config.id)
    assert stats.encoded == len(set(task.texts())) == stats.requested


@pytest.mark.parametrize("name", ["probe-x-as-agent", "probe-agent-of-verb", "probe-negation-scope"])
def test_a_bag_of_words_encoder_is_exactly_at_chance_on_role_and_scope(name):
    """Minimal pairs have the same words, so an order-blind encoder gives both members one vector."""
    model = EmbeddingCache(None).wrap(HashBagEncoder(dim=32))
    _, out = _run(f"{name},{SMALL}", model)
    assert next(s for s in out.scores if s.subset == "logreg").value == 0.5


def test_a_bag_of_words_encoder_solves_has_x():
    model = EmbeddingCache(None).wrap(HashBagEncoder(dim=128))
    _, out = _run(f"probe-has-x,words=school,n_train=400,n_test=200,classifiers=logreg", model)
    assert next(s for s in out.scores if s.subset == "logreg").value > 0.9


def test_has_x_is_limited_by_dimension_not_by_the_data():
    """Why mean 50-d GloVe stops near 91% on has-X: with the same sentences and the same linear probe,
    a mean of random 300-d word vectors is perfect, a mean of random 50-d ones is not."""
    accuracy = {}
    for dim in (50, 300):
        model = EmbeddingCache(None).wrap(HashBagEncoder(dim=dim))
        _, out = _run("probe-has-x,classifiers=logreg", model)
        accuracy[dim] = next(s for s in out.scores if s.subset == "logreg").value
    assert accuracy[300] >= 0.99
    assert accuracy[50] < accuracy[300] - 0.05


def test_results_are_reproducible_for_a_seed():
    model = EmbeddingCache(None).wrap(HashBagEncoder(dim=16))
    _, a = _run(f"probe-has-human,{SMALL}", model, seed=3)
    _, b = _run(f"probe-has-human,{SMALL}", model, seed=3)
    assert [s.model_dump() for s in a.scores] == [s.model_dump() for s in b.scores]
    assert a.counts["heldout_nouns"] == b.counts["heldout_nouns"]


def test_generated_tasks_report_why_the_random_probe_control_does_not_apply():
    model = EmbeddingCache(None).wrap(HashBagEncoder(dim=16))
    _, out = _run(f"probe-agent-of-verb,{SMALL}", model)
    control = next(s for s in out.scores if s.subset == "control-random-probe")
    assert control.value is None and "not applicable" in control.details["reason"]


@pytest.mark.parametrize("spec, message", [
    ("probe-has-x,words=unicorn", "not a noun"),
    ("probe-agent-of-verb,pairs=professor", "NOUN:VERB"),
    ("probe-has-x,classifiers=mlp", "must include"),
    ("probe-has-x,n_train=4", "at least 10"),
    ("probe-has-x,colour=blue", "unknown option"),
])
def test_bad_task_options(spec, message):
    with pytest.raises(SpecError, match=message):
        get_tasks(spec)


@pytest.mark.integration
def test_mean_glove_knows_words_but_not_roles():
    from compeval.models.registry import load_model

    try:
        glove = load_model("glove-6b-50d", cache=EmbeddingCache(None))
    except SpecError as exc:
        pytest.skip(f"glove-6b-50d is not available: {exc}")
    _, has_x = _run("probe-has-x,words=school,n_train=400,n_test=200,classifiers=logreg", glove)
    _, role = _run("probe-x-as-agent,words=school,n_train=400,n_test=200,classifiers=logreg", glove)
    assert next(s for s in has_x.scores if s.subset == "logreg").value > 0.85
    assert next(s for s in role.scores if s.subset == "logreg").value == pytest.approx(0.5, abs=0.02)
