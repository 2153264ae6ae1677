"""Every registered task passes check_task; bad options fail with one line naming task, option and range."""
from __future__ import annotations

import numpy as np
import pytest

from compeval.data.registry import DataContext
from compeval.errors import SpecError
from compeval.tasks.conformance import CheckEncoder, TaskConformanceError, check_output, check_task
from compeval.tasks.registry import TASKS, get_tasks

# Every registered task, each checked under the cheap options its class declares (``Task.conformance_options``):
# a new suite declares them in its own folder and edits nothing here.


def test_every_task_declares_its_cheap_options():
    assert len(TASKS) > 30  # the registry found the suites (a discovery that found nothing would pass below)
    missing = sorted(n for n, cls in TASKS.items() if cls.conformance_options is None)
    assert missing == [], f"declare conformance_options (its cheapest options) on the task class of: {missing}"


@pytest.mark.parametrize("name", sorted(TASKS))
def test_task_conforms(name, data_dir):
    (task,) = get_tasks(f"{name},{TASKS[name].conformance_options}")
    assert task.options.non_default(), "the cheap options must differ from the defaults (round-trip check)"
    if TASKS[name].trains_model:  # it cannot train CheckEncoder: metadata and options checked, the model refused
        from compeval.errors import ModelCapabilityError

        with pytest.raises(ModelCapabilityError) as info:
            check_task(task, DataContext(data_dir, download=False), seed=1)
        assert "\n" not in str(info.value)
        return
    notes = check_task(task, DataContext(data_dir, download=False), seed=1)
    need = task.missing_requirements()  # e.g. the licensed BNC, not on this machine
    assert notes == ([f"{name}: not evaluated ({need})"] if need else [])


@pytest.mark.parametrize("spec, message", [
    ("sts3k,bootstrap=-5", r"task 'sts3k': option bootstrap='-5' must be a whole number, at least 40"),
    ("modifiers-test2,n_resamples=0", r"option n_resamples='0' must be a whole number, at least 40"),
    ("sts3k,missing=maybe", r"option missing='maybe' must be one of zero, drop"),
    ("sts3k-finetune,test_fraction=1", r"test_fraction='1' must be a number, greater than 0 and less than 1"),
    ("probe-negation-scope,role_negatives=nan", r"role_negatives='nan' must be a number, at least 0 and at most 1"),
    ("sts3k-reliability,splits=1", r"splits='1' must be a whole number, at least 2"),
    ("minimal-pairs,n_bases=100000", r"n_bases='100000' must be a whole number, at least 1 and at most"),
    ("invariance-qa,generator_seed=-1", r"generator_seed='-1' must be a whole number, at least 0"),
    ("lexcomp-vpc,batch_size=-2", r"batch_size='-2' must be a whole number, at least 1"),
    ("probe-has-x,mlp_early_stopping=perhaps", r"mlp_early_stopping='perhaps' must be true or false"),
    ("probe-has-x,n_train=1.5", r"n_train='1.5' must be a whole number"),
    ("stsb,splitt=dev", r"task 'stsb': unknown option 'splitt'; options: norm, missing, bootstrap, split"),
    ("probe-has-x,words=unicorn", r"task 'probe-has-x': option words='unicorn': 'unicorn' is not a noun"),
])
def test_bad_options_are_one_line_errors(spec, message):
    with pytest.raises(SpecError, match=message) as info:
        get_tasks(spec)
    assert "\n" not in str(info.value)


def test_python_api_is_validated_like_the_cli():
    from compeval.tasks.sts.tasks import STS3k

    assert STS3k(bootstrap=50).params == get_tasks("sts3k,bootstrap=50")[0].params == {"norm": "none",
                                                                                     "missing": "zero",
                                                                                     "bootstrap": 50}
    with pytest.raises(SpecError, match="bootstrap=0 must be a whole number, at least 40"):
        STS3k(bootstrap=0)
    with pytest.raises(SpecError, match="unknown option 'bootstrapp'"):
        STS3k(bootstrapp=10)


def test_every_numeric_option_has_a_range():
    for name, cls in TASKS.items():
        for option, field in cls.Options.model_fields.items():
            if field.annotation in (int, float):
                assert field.metadata, f"{name}: option {option} has no range"


def test_check_task_catches_a_nondeterministic_task(data_dir, monkeypatch):
    """The kit must fail a task whose scores move between runs with the same seed."""
    from compeval.tasks.structure.tasks import MinimalPairsTask

    calls = []
    original = MinimalPairsTask.evaluate

    def drifting(self, model, *, seed):
        calls.append(seed)
        return original(self, model, seed=seed + len(calls))

    monkeypatch.setattr(MinimalPairsTask, "evaluate", drifting)
    (task,) = get_tasks("minimal-pairs,n_bases=4,bootstrap=40")
    with pytest.raises(TaskConformanceError, match="deterministic"):
        check_task(task, DataContext(data_dir, download=False))


def test_check_output_rejects_a_broken_interval():
    from compeval.results.schema import Score
    from compeval.tasks.base import TaskOutput

    (task,) = get_tasks("ks2013")
    good = Score(subset="all", metric="spearman", value=0.5, ci_low=0.4, ci_high=0.6, n=10)
    check_output(task, TaskOutput(scores=[good], n_items=10))
    for bad in (good.model_copy(update={"ci_low": 0.7}), good.model_copy(update={"ci_high": None}),
                good.model_copy(update={"value": float("nan")})):
        with pytest.raises(TaskConformanceError):
            check_output(task, TaskOutput(scores=[bad], n_items=10))
    with pytest.raises(TaskConformanceError, match="main score"):
        check_output(task, TaskOutput(scores=[good.model_copy(update={"subset": "other"})], n_items=10))


def test_check_encoder_is_deterministic():
    a, b = CheckEncoder(), CheckEncoder()
    texts = ["the dog bit the man", "the man bit the dog", ""]
    assert (a.encode(texts) == b.encode(texts)).all()
    assert np.allclose(a.encode(texts[:1]), a.encode(texts[1:2]))  # a bag of words: order-blind
