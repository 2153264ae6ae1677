"""docs/contributing.md's model-family example, run as written: its options come from its ``Options`` class,
``name=`` renames it (a plain ``self.config`` attribute), and run settings stay out of the id."""
from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

from compeval.errors import SpecError
from compeval.models import registry
from compeval.models.registry import load_model, resolve_family

DOC = Path(__file__).resolve().parents[2] / "docs" / "contributing.md"


@pytest.fixture()
def mymodel(monkeypatch):
    text = DOC.read_text()
    block = re.search(r"```python\n(# src/compeval/models/mymodel\.py\n.*?)```", text, re.S)
    assert block, "docs/contributing.md lost its model-family example"
    registry.discover()
    monkeypatch.setattr(registry, "FAMILIES", dict(registry.FAMILIES))  # the example registers into a copy
    module = types.ModuleType("compeval.models.mymodel")
    module.__package__ = "compeval.models"
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(block.group(1), str(DOC), "exec"), module.__dict__)
    return module


def test_the_example_family_builds_lists_and_renames(mymodel):
    plain = load_model("mymodel:/tmp/weights,layer=3")
    named = load_model("mymodel:/tmp/weights,layer=3,name=mine")
    assert isinstance(plain, mymodel.MyModel) and plain.layer == 3 and plain.pool == "mean"
    assert named.config.name == "mine" and plain.config.name == "/tmp/weights"
    assert named.config.id != plain.config.id and named.config.params == plain.config.params
    fast = load_model("mymodel:/tmp/weights,layer=3,batch=4")
    assert fast.batch == 4 and fast.config.id == plain.config.id and fast.config.settings == {"batch": 4}
    assert load_model("mymodel:/tmp/weights,layer=3,pool=cls").config.id != plain.config.id
    fam = resolve_family("mymodel")
    assert "[,layer=-1][,pool=mean|cls][,batch=16]" in registry.family_forms(fam)
    kinds = {r["option"]: r["kind"] for r in fam.options.rows()}
    assert kinds == {"norm": "identity", "name": "identity", "layer": "identity", "pool": "identity",
                     "batch": "run setting"}
    with pytest.raises(SpecError, match=r"^mymodel:p,pool=max: option pool='max' must be one of mean, cls$"):
        load_model("mymodel:p,pool=max")


def test_a_model_whose_config_cannot_be_replaced_is_refused_in_one_line(mymodel, monkeypatch):
    class Fixed(mymodel.MyModel):
        @property
        def config(self):
            return mymodel.ModelConfig(family="mymodel.v1", name=self.path)

        @config.setter
        def config(self, value):
            pass

    monkeypatch.setattr(mymodel, "MyModel", Fixed)
    with pytest.raises(SpecError, match="cannot be renamed") as err:
        load_model("mymodel:p,name=x")
    assert "\n" not in str(err.value)
