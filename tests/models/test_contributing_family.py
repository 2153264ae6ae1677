"""docs/contributing.md's toy family, run as written: the block registers a family that builds, passes
``check_model`` and records its family and option, so the doc cannot drift from the factory API."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from compeval.models import load_model
from compeval.models.conformance import check_model
from compeval.models.registry import FAMILIES

DOC = Path(__file__).resolve().parents[2] / "docs" / "contributing.md"


def toy_block() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("<!-- example: toy-family")
    return re.search(r"```python\n(.*?)```", text[start:], re.S).group(1)


@pytest.fixture
def scratch_families():
    FAMILIES.load()
    saved = FAMILIES.snapshot()
    yield
    FAMILIES.restore(saved)


def test_the_documented_toy_family_is_about_twenty_lines_and_runs(scratch_families):
    code = toy_block()
    assert len([line for line in code.splitlines() if line.strip()]) <= 22
    exec(compile(code, str(DOC), "exec"), {"__name__": "toy_family_doc"})
    model = load_model("lengths,scale=2")
    check_model(model)
    assert model.config.family == "lengths.v1" and model.config.params == {"scale": 2.0}
    assert model.encode(["a red car"]).tolist() == [[3.0, 18.0]]
    assert load_model("lengths").config.id != model.config.id
