"""A family's factory builds from the ``ResolvedModel`` it is given: its device and weights come with it,
so that a worker given the resolved model builds the same thing, and the builder keeps no side tables."""
from __future__ import annotations

import dataclasses
from dataclasses import replace
from types import SimpleNamespace

import pytest

from compeval.models.options import ModelOptions
from compeval.models.registry import FAMILIES, ModelBuilder, register_model, resolve_family, resolve_model


def test_the_builder_keeps_run_settings_and_caches_only():
    fields = {f.name for f in dataclasses.fields(ModelBuilder)}
    assert fields == {"cache", "data_dir", "device", "batch_size", "max_batch_tokens", "_built", "_resolved"}
    for gone in ("weights", "device_of", "device_for", "_weights", "_devices"):
        assert not hasattr(ModelBuilder(), gone)


@pytest.mark.parametrize("text", ["hf:all-MiniLM-L6-v2,layer=3", "sbert:all-MiniLM-L6-v2"])
def test_a_factory_builds_on_the_resolved_device_and_weights(text):
    resolved = resolve_model(text)
    weights = replace(resolved.weights, name="from-the-resolved-model")
    # a device no builder here would pick; the weights load on first use, so nothing runs there
    given = replace(resolved, device="cuda:7", weights=weights)
    run = SimpleNamespace(batch_size=5, max_batch_tokens=None)  # a builder with nothing else to ask
    model = resolve_family(given.family).factory(given, run)
    assert model.device == "cuda:7"
    assert model.config.name == "from-the-resolved-model"
    assert model.setup.batch == 5  # the run's batch size, the spec setting none


def test_a_torch_model_runs_on_its_own_device_else_the_run_device():
    run = ModelBuilder(device="cuda:3")  # resolved already (a run's); nothing loads, so no GPU is needed
    assert run("hf:all-MiniLM-L6-v2").device == "cuda:3"
    assert run("hf:all-MiniLM-L6-v2,device=cpu").device == "cpu"


@pytest.fixture
def scratch_families():
    FAMILIES.load()
    saved = FAMILIES.snapshot()
    yield
    FAMILIES.restore(saved)


def test_to_model_config_records_the_registered_family(scratch_families):
    class OwnOptions(ModelOptions):
        pass

    @register_model("factorytest-own", 3, "a test family", ("factorytest-own",), options=OwnOptions)
    def _own(resolved, builder):
        return resolved.options.to_model_config("own")

    assert resolve_family("factorytest-own").factory(resolve_model("factorytest-own"), None).family == \
        "factorytest-own.v3"
    with pytest.raises(TypeError, match="OwnOptions is the options of factorytest-own.v3"):
        register_model("factorytest-other", 1, "another", ("factorytest-other",), options=OwnOptions)
    with pytest.raises(TypeError, match="belongs to no family"):
        ModelOptions().to_model_config("nameless")
