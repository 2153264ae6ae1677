"""The one identity rule (``ModelOptions.to_model_config``): a family's params and display name come from its
options as their fields declare, and no family assembles a ``ModelConfig`` by hand."""
from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

import pytest

from compeval.models.options import ModelOptions, identity_field
from compeval.options import setting

SRC = Path(__file__).resolve().parents[2] / "src" / "compeval"


class DemoOptions(ModelOptions):
    pool: str = identity_field("mean", param="pooling", show="always")
    layer: int = identity_field(-1)
    dtype: str = identity_field("float32", record="changed", show="recorded")
    prompt: str | None = identity_field(None, show="recorded")
    hidden: int = identity_field(3, show="never")
    batch: int = setting(8)

    family: ClassVar[str] = "demo.v1"
    shown_order: ClassVar[tuple[str, ...]] = ("layer", "pooling")


def test_defaults_resolved_values_and_facts():
    config = DemoOptions().to_model_config("demo", resolved={"layer": 6}, facts={"weights": "sha:1"})
    # renamed by the field; the resolved layer; dtype left out at its default; None never recorded; the run
    # setting never in params
    assert config.params == {"layer": 6, "hidden": 3, "weights": "sha:1", "pooling": "mean"}
    assert config.shown_params == ("pooling",)  # always shown; layer only when set away from its default
    assert config.display == "demo,pooling=mean"


def test_set_options_are_recorded_and_shown_in_declared_order():
    opts = DemoOptions(pool="cls", layer=2, dtype="bfloat16", prompt="q: ", hidden=5, batch=2)
    config = opts.to_model_config("demo")
    assert config.params["dtype"] == "bfloat16" and config.params["hidden"] == 5 and "batch" not in config.params
    # shown_order first (layer, pooling), then the others in field order; hidden is never shown
    assert config.shown_params == ("layer", "pooling", "dtype", "prompt")
    assert config.display == "demo,layer=2,pooling=cls,dtype=bfloat16,prompt=q: "


def test_a_resolved_none_leaves_the_option_out_and_run_settings_never_change_the_id():
    a = DemoOptions(prompt="q: ").to_model_config("demo", resolved={"prompt": None})
    assert "prompt" not in a.params and "prompt" not in a.shown_params
    b = DemoOptions(batch=64).to_model_config("demo")
    c = DemoOptions(batch=1).to_model_config("demo")
    assert b.id == c.id
    assert DemoOptions(hidden=4).to_model_config("demo").id != b.id


def test_a_fact_may_not_shadow_an_option():
    with pytest.raises(ValueError, match="fact 'pooling' is an option's param"):
        DemoOptions().to_model_config("demo", facts={"pooling": "max"})


def test_declarations_are_checked():
    with pytest.raises(ValueError, match="record must be one of"):
        identity_field(0, record="sometimes")


#: The only ``ModelConfig(`` calls allowed in the package: the rule itself, a Python object's own declared
#: identity (``protocol.as_model``) and the task conformance check's fixed encoder.
ALLOWED = {"models/options.py", "models/protocol.py", "tasks/conformance.py"}


def test_no_family_assembles_its_config_by_hand():
    sites = {}
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\bModelConfig\(", line) and not line.lstrip().startswith(("#", "class ")):
                sites.setdefault(rel, []).append(n)
    assert set(sites) <= ALLOWED, {k: v for k, v in sites.items() if k not in ALLOWED}
    assert len(sites.get("models/options.py", [])) == 1
