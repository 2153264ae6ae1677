"""Published reference rows (each suite's ``published.py``, carried by its tasks' metadata): each carries a
citation, and the tables transcribed from the method specs match the specs' own tables (read from
``shared/spec`` beside the data folder)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from compeval.results.schema import PublishedScore
from compeval.tasks.registry import TASKS, discover


def published() -> list[tuple[str, PublishedScore]]:
    """(task name, row) for every published row of every registered task."""
    discover()
    return [(name, p) for name, cls in TASKS.items() for p in cls.metadata.published]


def published_for(task: str) -> list[PublishedScore]:
    return [p for t, p in published() if t == task]


def published_value(model: str, task: str, subset: str, metric: str) -> PublishedScore | None:
    return next((p for t, p in published() if (p.model, t, p.subset, p.metric) == (model, task, subset, metric)),
                None)


def test_every_row_names_a_task_and_a_citation():
    rows = published()
    assert len(rows) > 100
    for task, p in rows:
        assert p.citation and p.model and p.metric, p
        assert -1.0 <= p.value <= 1.0, p  # every figure is on the 0-1 (or -1-1) scale compeval reports
        meta = TASKS[task].metadata
        assert p.subset in meta.subsets, (task, p)
        if p.subset == meta.main_subset and meta.ranked:
            assert p.metric == meta.main_metric, (task, p)
    keys = [(p.model, task, p.subset, p.metric) for task, p in rows]
    assert len(keys) == len(set(keys)), "a published figure is listed twice"


def _spec(data_dir: Path, name: str) -> str:
    path = data_dir.parent / "spec" / name
    if not path.is_file():
        pytest.skip(f"no method spec at {path}")
    return path.read_text(encoding="utf-8")


def _number(cell: str) -> float | None:
    cell = cell.strip().replace("−", "-")
    if cell in ("–", ""):
        return None
    return float(cell)


def test_sts_table_matches_the_spec(data_dir):
    text = _spec(data_dir, "sts.md")
    header = next(line for line in text.splitlines() if line.startswith("| model | STSb-capt"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    wanted = {"STSb-test": ("stsb", "all"), "SICK": ("sick", "all"), "STSS-131": ("stss131", "all"),
              "STS3k-all": ("sts3k", "all"), "STS3k-non": ("sts3k", "non"), "STS3k-adv": ("sts3k", "adv")}
    rows = 0
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("| model") or "---" in line:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != len(cols) or not re.match(r"^[−\-.\d–]", cells[1]):
            continue
        rows += 1
        for col, (task, subset) in wanted.items():
            value = _number(cells[cols.index(col)])
            got = published_value(cells[0], task, subset, "spearman")
            if value is None:
                assert got is None, (cells[0], col)
            else:
                assert got is not None and got.value == pytest.approx(value), (cells[0], col)
    assert rows == 16


def test_inference_auc_table_matches_the_spec(data_dir):
    text = _spec(data_dir, "inference.md")
    averages = {}
    for line in text.splitlines():
        m = re.match(r"^\| ([^|]+?) \|(?: [.\d]* \|){4} ([.\d]+) \|$", line)
        if m:
            averages[m.group(1)] = float(m.group(2))
    assert averages["Overlap"] == pytest.approx(0.7427)
    for model, value in averages.items():
        assert published_value(model, "invariance-relation", "all", "auc").value == pytest.approx(value)
    assert len(published_for("invariance-relation")) == len(averages) + 4  # + E&P and TFP add / mult
