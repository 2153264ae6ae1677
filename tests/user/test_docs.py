"""docs/user-tasks.md's worked examples run as written: each generates its file, and each command's task
builds and scores; the TOML file shown and the command line shown are one task with the id the page states."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from compeval.models.protocol import as_model
from compeval.models.families.toy import HashBagEncoder
from compeval.specs import parse_spec
from compeval.tasks.registry import get_tasks

DOC = Path(__file__).resolve().parents[2] / "docs" / "user-tasks.md"


def examples() -> dict[str, tuple[str, list[str]]]:
    """name -> (the Python block, the task specs of the command after it)."""
    text = DOC.read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"<!-- user-tasks: (\S+) -->\n```python\n(.*?)```\n\n```\n(compeval run .*?)\n```", text, re.S):
        out[m.group(1)] = (m.group(2), re.findall(r"-t (\S+)", m.group(3)))
    return out


def test_the_page_has_one_example_per_kind():
    kinds = {parse_spec(spec).name for _, specs in examples().values() for spec in specs}
    assert kinds == {"pairs", "triplets", "probe", "modifiers"}


@pytest.mark.parametrize("name", ["roles", "pairs", "probe", "modifiers"])
def test_each_example_runs_as_written(name, tmp_path, monkeypatch):
    code, specs = examples()[name]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"docs/user-tasks.md:{name}", "exec"), {})
    model = as_model(HashBagEncoder(dim=16))
    for spec in specs:
        (task,) = get_tasks(spec)
        task.load(None)
        out = task.evaluate(model, seed=0)
        main = next(s for s in out.scores if s.metric == task.metadata.main_metric and s.subset == task.metadata.main_subset)
        assert main.value is not None and main.n > 0


def test_the_toml_shown_is_the_command_line_shown(tmp_path, monkeypatch):
    text = DOC.read_text(encoding="utf-8")
    toml = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    code, (spec,) = examples()["roles"]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/user-tasks.md:roles", "exec"), {})
    Path("roles.toml").write_text(toml)
    (from_file,), (from_spec,) = get_tasks("roles.toml"), get_tasks(spec)
    assert from_file.slug == from_spec.slug
    assert f"(`{from_spec.slug}`)" in text  # the id the page states
