"""A suite is one folder: a toy suite written only into its own folder (tasks, data source, report section,
published rows) runs, reads its pinned data and shows up in the report; and the report takes every task
fact (direction, ranked, published figures) from the results, falling back to the registered task only for
results written before the facts were recorded."""
from __future__ import annotations

import hashlib
import importlib
import json
import shutil
import sys
from pathlib import Path

import pytest

import compeval.tasks
from compeval import plugins
from compeval.data import registry as data_registry
from compeval.report import build_report, leaderboard_frame
from compeval.report import sections as section_registry
from compeval.report.loading import ResultsIndex, task_facts
from compeval.report.tables import columns, ranked
from compeval.results.schema import TaskInfo
from compeval.results.store import content_checksum
from compeval.runner import run
from compeval.tasks import registry as task_registry

PAIRS = "the cat sat on the mat\tthe cat sat on a mat\nthe dog ran home\tthe dog ran home fast\n" \
        "a red car\ta red car parked\nbirds sing at dawn\tbirds sing at dusk\n"

TOY_SUITE = {
    "__init__.py": '"""Toy suite: one task, one data source, one report section, one published figure."""\n'
                   "from . import tasks  # noqa: F401\n",
    "published.py": '''from ...results.schema import PublishedScore

PUBLISHED = (PublishedScore(model="Toy paper", metric="distance", value=0.25, citation="Toy et al. (2025), Table 1"),)
''',
    "sources.py": '''from ...data.registry import DataFile, DataSource

SOURCES = (DataSource(
    name="toy-pairs", description="toy sentence pairs", homepage="https://example.org/toy", revision="v1",
    license="CC0", files=(DataFile("pairs.tsv", "https://example.org/toy/pairs.tsv", "{sha}"),)),)
''',
    "tasks.py": '''import numpy as np

from ...results.schema import Score
from ..base import Task, TaskMetadata, TaskOutput
from ..registry import register_task
from ..scoring import pair_similarity
from .published import PUBLISHED


@register_task
class ToyDistance(Task):
    metadata = TaskMetadata(name="toy-distance", suite="toysuite", description="mean cosine distance of toy pairs",
                            data_sources=("toy-pairs",), main_metric="distance", directions={"distance": "lower"},
                            published=PUBLISHED)

    def load(self, data):
        text = data.path("toy-pairs", "pairs.tsv").read_text(encoding="utf-8")
        self.pairs = [line.split("\\t") for line in text.splitlines()]

    def texts(self):
        return [t for pair in self.pairs for t in pair]

    def evaluate(self, model, *, seed):
        sims = pair_similarity(model, [a for a, _ in self.pairs], [b for _, b in self.pairs])
        return TaskOutput(scores=[Score(metric="distance", value=float(np.mean(1 - sims)), n=len(self.pairs))],
                          n_items=len(self.pairs))
''',
    "report.py": '''from ...report.sections import register_section
from ...report.sections.base import BuildContext, Cell, Section, Table, fmt


def build(ctx: BuildContext):
    if not ctx.index.suite("toysuite"):
        return None
    rows = [[Cell(e.model), Cell(fmt(e.main.value))] for e in ctx.index.firsts("toy-distance")]
    rows += [[Cell(p.model), Cell(fmt(p.value), cls="published")] for p in ctx.index.published("toy-distance")]
    return Section(id="suite-toysuite", suite="toysuite", title="Toy suite", intro="Mean cosine distance.",
                   tables=[Table(id="table-toy", caption="Toy distances", columns=["model", "distance"], rows=rows)])


register_section("toysuite", title="Toy suite", order=5, build=build, task_order=["toy-distance"])
''',
}


@pytest.fixture()
def toy_suite(tmp_path, monkeypatch):
    """Writes the toy suite into its own folder and makes it a sub-package of ``compeval.tasks`` (as a
    folder under ``src/compeval/tasks/`` is); the registries get it by discovery alone."""
    for part in (None, "sources", "report"):  # the real suites first, so the registries' copies hold them
        plugins.discover_suites(part)
    data = tmp_path / "data" / "toy-pairs"
    data.mkdir(parents=True)
    (data / "pairs.tsv").write_text(PAIRS, encoding="utf-8")
    folder = tmp_path / "plugins" / "toysuite"
    folder.mkdir(parents=True)
    sha = hashlib.sha256(PAIRS.encode()).hexdigest()
    for name, text in TOY_SUITE.items():
        (folder / name).write_text(text.replace("{sha}", sha), encoding="utf-8")
    monkeypatch.setattr(compeval.tasks, "__path__", [*compeval.tasks.__path__, str(folder.parent)])
    monkeypatch.setattr(plugins, "_done", {})
    registries = (task_registry.TASKS, data_registry.SOURCES, section_registry.SECTIONS)
    saved = [r.snapshot() for r in registries]
    for r in registries:
        r.forget_discovery()  # the next read scans the suite folders again, and finds the toy suite
    importlib.invalidate_caches()
    yield folder, tmp_path / "data"
    for r, state in zip(registries, saved):
        r.restore(state)
    for name in [m for m in sys.modules if m.startswith("compeval.tasks.toysuite")]:
        del sys.modules[name]


def test_a_new_suite_is_one_folder(toy_suite, tmp_path):
    folder, data_dir = toy_suite
    assert sorted(p.name for p in folder.iterdir()) == ["__init__.py", "published.py", "report.py", "sources.py",
                                                         "tasks.py"]
    out = tmp_path / "results"
    summary = run(["hashbag", "random,dim=16"], ["toysuite", "invariance-relation,pairs_per_relation=2,bootstrap=100"],
                  out, data_dir=data_dir, cache_dir=None, download=False)
    assert not summary.failed, [o.error for o in summary.failed]
    assert not plugins.BROKEN

    # the result carries the task's facts and the data pin, checked against the source's hash
    (toy_path,) = [o.path for o in summary.outcomes if o.model == "hashbag" and o.task == "toy-distance"]
    result = json.loads(Path(toy_path).read_text())
    assert result["task"]["directions"] == {"distance": "lower"} and result["task"]["ranked"] is True
    assert result["task"]["data_sources"] == ["toy-pairs"]
    assert result["task"]["published"][0]["model"] == "Toy paper"
    assert result["data"][0]["source"] == "toy-pairs" and result["data"][0]["verified"] is True

    index = ResultsIndex(out)
    toy = [e for e in index.entries if e.task == "toy-distance"]
    best = ranked(toy)[0]
    assert best.main.value == min(e.main.value for e in toy)  # lower is better, as the result says
    assert best.model == "hashbag"  # the pairs share most words: a bag of words finds them close

    info = build_report(out, tmp_path / "report.html", n_resamples=100, n_permutations=100)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert info.sections == ["leaderboard", "suite-toysuite", "suite-invariance", "paired", "provenance"]
    assert not info.warnings
    assert 'id="table-toy"' in html and "Toy paper" in html
    assert "distance · all ↓" in html
    frame = leaderboard_frame(out, include_published=True)
    assert frame.loc["Toy paper [published]", ("toysuite", "toy-distance", "value")] == pytest.approx(0.25)
    assert columns(index)[0] == ("toysuite", "toy-distance")  # the suite's order=5 puts it first


def _rewrite(path: Path, data: dict) -> None:
    """Write an edited result as a compeval of that shape would have: with the checksum of its new content."""
    if data.get("checksum") is not None:
        data["checksum"] = content_checksum(data)
    path.write_text(json.dumps(data))


def _strip_facts(folder: Path) -> int:
    """Rewrite every result as the previous version wrote it: no task facts beyond the main metric."""
    n = 0
    for path in folder.glob("*/*.json"):
        data = json.loads(path.read_text())
        for key in ("directions", "ranked", "data_sources", "published"):
            data["task"].pop(key)
        _rewrite(path, data)
        n += 1
    return n


def test_results_of_the_previous_version_still_load(toy_results, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(toy_results, old)
    assert _strip_facts(old) > 0
    assert ResultsIndex(old).entries[0].result.task.published is None  # really the old format
    now, before = leaderboard_frame(toy_results, include_published=True), leaderboard_frame(old, include_published=True)
    assert before.equals(now) and "Overlap [published]" in before.index
    assert [e.task for e in ranked([e for e in ResultsIndex(old).entries if e.task_name == "invariance-relation"])] \
        == [e.task for e in ranked([e for e in ResultsIndex(toy_results).entries if e.task_name == "invariance-relation"])]
    info = build_report(old, tmp_path / "old.html", n_resamples=100, n_permutations=100)
    assert not info.warnings and "suite-invariance" in info.sections


def test_old_results_take_their_facts_from_the_registered_task():
    def old(name, metric):
        return TaskInfo(name=name, version="1", suite="structure", main_metric=metric, main_subset="all")

    types = task_facts(old("sts3k-types", "profile_mad"))
    assert types.direction("profile_mad") == -1 and types.ranked
    assert {p.model for p in types.published} >= {"Mean-CN", "VerbNet-CN"}
    assert task_facts(old("sts3k-reliability", "split_half")).ranked is False
    assert task_facts(old("sts3k-reliability", "split_half")).direction("split_half") == 0
    unknown = task_facts(old("no-such-task", "score"))  # not registered: the defaults
    assert unknown.ranked and unknown.direction("score") == 1 and unknown.published == []


def test_the_report_reads_the_facts_from_the_results(toy_results, tmp_path):
    """Facts in a result win over the registered task: flip the direction and ranking in the files."""
    folder = tmp_path / "edited"
    shutil.copytree(toy_results, folder)
    for path in folder.glob("*/invariance-relation*.json"):
        data = json.loads(path.read_text())
        data["task"]["directions"] = {"auc": "lower"}
        _rewrite(path, data)
    for path in folder.glob("*/minimal-pairs*.json"):
        data = json.loads(path.read_text())
        data["task"]["ranked"] = False
        _rewrite(path, data)
    before, after = ResultsIndex(toy_results), ResultsIndex(folder)
    rel = [e for e in before.entries if e.task_name == "invariance-relation"]
    rel_after = [e for e in after.entries if e.task_name == "invariance-relation"]
    assert [e.model for e in ranked(rel_after)] == [e.model for e in ranked(rel)][::-1]
    assert any(t.startswith("minimal-pairs") for _, t in columns(before))
    assert not any(t.startswith("minimal-pairs") for _, t in columns(after))
