"""The run's ``--device`` is resolved once, in the run context, and reaches the model builder and a trained
head as that value; a model spec's own ``device=`` is the one other resolution (in the builder)."""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import compeval.context as context
from compeval.results.schema import Score
from compeval.tasks.base import Task, TaskMetadata, TaskOutput

from hub_fakes import put_in_hub_cache

pytest.importorskip("sentence_transformers")

TEXTS = [f"the {a} {b} sleeps" for a in ("old", "young", "small", "tall") for b in ("dog", "cat", "man", "bird")]


class _TrainsAHead(Task):
    """Encodes sixteen sentences and trains a probe on the run's device, as the probing tasks do."""

    metadata = TaskMetadata(name="trains-a-head", suite="test", description="one small trained probe",
                            main_metric="accuracy")

    def load(self, data):
        pass

    def evaluate(self, model, *, seed):
        from compeval.training.mlp import MLPJob, fit_mlps
        from compeval.training.settings import AdamSettings, trainer_record

        x = np.asarray(model.encode(TEXTS), dtype=np.float32)
        y = np.array([t.split()[2] in ("dog", "cat") for t in TEXTS], dtype=np.float32)
        device = self.context.torch_device()
        fit = fit_mlps([MLPJob("probe", x, y, x, seed)], settings=AdamSettings(max_iter=5), device=device)[0]
        value = float((np.asarray(fit.predictions) == y).mean())
        return TaskOutput(scores=[Score(subset="all", metric="accuracy", value=value, n=len(y))], n_items=len(y),
                          counts={"trainer": trainer_record(device)})


def _counted(monkeypatch) -> list[str]:
    """Every call of ``resolve_device`` from now on, through whichever module imported it."""
    import compeval.models.registry  # noqa: F401  (every module that may resolve a device, imported first)
    import compeval.models.families.sentence_transformers  # noqa: F401
    import compeval.runner.runner  # noqa: F401
    import compeval.training.mlp  # noqa: F401

    real, calls = context.resolve_device, []

    def counting(device: str = "auto") -> str:
        calls.append(device)
        return real(device)

    for name, module in list(sys.modules.items()):
        if name.startswith("compeval") and getattr(module, "resolve_device", None) is real:
            monkeypatch.setattr(module, "resolve_device", counting)
    return calls


def _run(spec: str, out, monkeypatch) -> tuple[list[str], dict]:
    from compeval.runner import run

    calls = _counted(monkeypatch)
    summary = run([spec], [_TrainsAHead()], out, cache_dir=None, device="auto", progress=False)
    monkeypatch.undo()
    [outcome] = summary.outcomes
    assert outcome.status == "done", outcome.error
    return calls, json.loads(outcome.path.read_text())


def test_a_run_resolves_its_device_once_for_the_model_and_the_trained_head(hub_cache, tiny_models, tmp_path,
                                                                              monkeypatch):
    put_in_hub_cache(hub_cache, "org/tiny-st", tiny_models["sbert"])
    expected = context.resolve_device("auto")
    calls, result = _run("sbert:org/tiny-st", tmp_path / "a", monkeypatch)
    assert calls == ["auto"]  # run(); the builder, the model, the task and the trainer take its value
    assert result["model"]["settings"]["device"] == expected
    assert result["counts"]["trainer"]["device"] == expected


def test_a_specs_own_device_is_resolved_by_the_builder_alone(hub_cache, tiny_models, tmp_path, monkeypatch):
    put_in_hub_cache(hub_cache, "org/tiny-st", tiny_models["sbert"])
    calls, result = _run("sbert:org/tiny-st,device=cpu", tmp_path / "b", monkeypatch)
    assert calls == ["auto", "cpu"]  # the run's --device, then the spec's own override, once
    assert result["model"]["settings"]["device"] == "cpu"
    assert result["counts"]["trainer"]["device"] == context.resolve_device("auto")  # heads: the run's device
