"""The one registry type (``compeval.registry``): a duplicate name is refused with both origins, nothing is
imported before a registry is read, suites declare their data sets without registering on import, and a
separately installed package (entry points) adds a suite, a data set, a report section and a model family
that ``compeval tasks`` / ``compeval models`` list and ``compeval run`` runs."""
from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import compeval
from compeval import plugins
from compeval.data import registry as data_registry
from compeval.data.registry import DataFile, DataSource, register_source
from compeval.errors import RegistryError
from compeval.models import registry as model_registry
from compeval.models.registry import register_alias, register_model
from compeval.registry import Registry
from compeval.report import sections as section_registry
from compeval.tasks import registry as task_registry
from compeval.tasks.base import Task, TaskMetadata

SRC = Path(compeval.__file__).parents[1]
HERE = Path(__file__).name
REGISTRIES = (task_registry.TASKS, model_registry.FAMILIES, model_registry.ALIASES, data_registry.SOURCES,
              section_registry.SECTIONS)


@pytest.fixture()
def scratch():
    """The real registries, restored afterwards (the tests register throw-away objects in them)."""
    for r in REGISTRIES:
        r.load()
    saved = [r.snapshot() for r in REGISTRIES]
    broken = dict(plugins.BROKEN)
    yield
    for r, state in zip(REGISTRIES, saved):
        r.restore(state)
    plugins.BROKEN.clear()
    plugins.BROKEN.update(broken)


# -- duplicates -------------------------------------------------------------------------------------------

def test_a_second_task_of_one_name_names_both_classes(scratch):
    with pytest.raises(RegistryError) as info:
        @task_registry.register_task
        class Clash(Task):
            metadata = TaskMetadata(name="sts3k", suite="sts", description="not STS3k", main_metric="spearman")

    message = str(info.value)
    assert "task 'sts3k' is registered twice" in message
    assert "compeval.tasks.sts.tasks:STS3k" in message
    assert "test_registry:test_a_second_task_of_one_name_names_both_classes.<locals>.Clash" in message
    assert "\n" not in message
    assert task_registry.TASKS["sts3k"].__name__ == "STS3k"  # the first one stands
    task_registry.register_task(task_registry.TASKS["sts3k"])  # the same class again: nothing happens


def test_a_second_data_set_of_one_name_names_both_places(scratch):
    original = data_registry.SOURCES["sts3k"]
    clash = DataSource(name="sts3k", description="another sts3k", homepage="https://example.org", revision="1",
                       license="CC0", files=(DataFile("a.txt", "https://example.org/a.txt", "0" * 64),))
    with pytest.raises(RegistryError, match=r"data set 'sts3k' is registered twice: by "
                                            r"compeval\.tasks\.sts\.sources\.SOURCES and by .*test_registry\.py:\d+"):
        register_source(clash)
    assert data_registry.get_source("sts3k") is original
    assert register_source(original) is original  # the same object again: nothing happens


def test_a_data_set_registered_before_any_read_still_meets_the_declared_ones():
    out = _python(
        "from compeval.data.registry import DataSource, register_source\n"
        "from compeval.errors import RegistryError\n"
        "try:\n"
        "    register_source(DataSource(name='sts3k', description='x', homepage='h', revision='1', license='l',"
        " files=()))\n"
        "except RegistryError as exc:\n"
        "    print(exc)\n")
    assert out.startswith("data set 'sts3k' is registered twice: by compeval.tasks.sts.sources.SOURCES and by <string>:")


def test_a_second_family_or_alias_of_one_name_names_both_places(scratch):
    def other_hashbag(resolved, builder):
        raise AssertionError("never built")

    with pytest.raises(RegistryError, match=r"model family 'hashbag\.v1' is registered twice: by "
                                            r"compeval\.models\.families\.toy:_hashbag and by .*other_hashbag"):
        register_model("hashbag", 1, "a clash", ("hashbag",))(other_hashbag)
    register_model("hashbag", 2, "a newer version", ("hashbag",))(other_hashbag)  # another version is no clash
    assert sorted(model_registry.FAMILIES["hashbag"]) == [1, 2]
    assert model_registry.resolve_family("hashbag.v1").factory.__module__ == "compeval.models.families.toy"

    with pytest.raises(RegistryError, match=r"model alias 'glove-6b-50d' is registered twice: by "
                                            r".*static\.py:\d+ and by .*test_registry\.py:\d+"):
        register_alias("glove-6b-50d", "static:glove-6b-300d", "another GloVe")
    alias = model_registry.ALIASES["glove-6b-50d"]
    register_alias(alias.name, alias.target, alias.description)  # the same alias again: nothing happens


def test_a_second_report_section_of_one_suite_is_refused(scratch):
    with pytest.raises(RegistryError, match=r"report section of suite 'sts' is registered twice: by "
                                            r".*tasks/sts/report\.py:\d+ and by .*test_registry\.py:\d+"):
        section_registry.register_section("sts", title="again", order=1, build=lambda ctx: None)


# -- lazy loading --------------------------------------------------------------------------------------------

def test_a_registry_discovers_once_when_first_read():
    calls = []
    reg: Registry[int] = Registry("thing", discover=lambda: (calls.append(1), reg.register("found", 2)))
    reg.register("given", 1)
    assert calls == [] and reg.peek("found") is None  # registering reads nothing
    assert "found" in reg and calls == [1]
    assert dict(reg.items()) == {"given": 1, "found": 2} and sorted(reg) == ["found", "given"] and len(reg) == 2
    assert calls == [1]


def _python(code: str, env: dict | None = None) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(SRC), **(env or {})})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_importing_registries_imports_no_plugin_and_sources_register_nothing():
    out = json.loads(_python(
        "import json, sys\n"
        "import compeval.tasks.registry, compeval.models.registry, compeval.report.sections\n"
        "from compeval.data import registry as d\n"
        "before = sorted(m for m in sys.modules if m.startswith(('compeval.tasks.', 'compeval.models.')))\n"
        "import compeval.tasks.sts.sources as s\n"
        "registered = sorted(d.SOURCES._entries)\n"
        "print(json.dumps({'before': before, 'registered': registered, 'declared': [x.name for x in s.SOURCES],\n"
        "                  'found': 'sts3k-parses' in d.SOURCES}))\n"))
    assert not [m for m in out["before"] if m.startswith("compeval.tasks.") and m != "compeval.tasks.registry"
                and not m.startswith(("compeval.tasks.base", "compeval.tasks.options"))]
    assert "compeval.models.families.sentence_transformers" not in out["before"]
    assert out["registered"] == []  # importing a suite's sources.py registered nothing
    assert {"sts3k", "stsb", "sick", "sts3k-parses"} <= set(out["declared"]) and out["found"]


# -- entry points: a separately installed plug-in ----------------------------------------------------------

PAIRS = "a b\ta b c\nthe cat sat\tthe cat\none\tone two three four\n"

PLUGIN = {
    "pyproject.toml": """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "compeval-toyplug"
version = "0.1"

[project.entry-points."compeval.tasks"]
toyplug = "compeval_toyplug.tasks"

[project.entry-points."compeval.models"]
toyplug = "compeval_toyplug.models"

[project.entry-points."compeval.data"]
toyplug = "compeval_toyplug.sources"

[project.entry-points."compeval.report"]
toyplug = "compeval_toyplug.report"

[tool.setuptools]
packages = ["compeval_toyplug"]
""",
    "compeval_toyplug/__init__.py": '"""A compeval plug-in: one suite (task, data set, report section) and one model family."""\n',
    "compeval_toyplug/sources.py": """from compeval.data.registry import DataFile, DataSource

SOURCES = (DataSource(name="toyplug-pairs", description="toy pairs of the plug-in", homepage="https://example.org",
                      revision="v1", license="CC0",
                      files=(DataFile("pairs.tsv", "https://example.org/pairs.tsv", "{sha}"),)),)
""",
    "compeval_toyplug/tasks.py": """import numpy as np

from compeval.results.schema import Score
from compeval.tasks.base import Task, TaskMetadata, TaskOutput
from compeval.tasks.registry import register_task
from compeval.tasks.scoring import pair_similarity


@register_task
class ToyPlugPairs(Task):
    metadata = TaskMetadata(name="toyplug-pairs", suite="toyplug", description="mean cosine of the plug-in's pairs",
                            data_sources=("toyplug-pairs",), main_metric="cosine")

    def load(self, data):
        text = data.path("toyplug-pairs", "pairs.tsv").read_text(encoding="utf-8")
        self.pairs = [line.split("\\t") for line in text.splitlines()]

    def texts(self):
        return [t for pair in self.pairs for t in pair]

    def evaluate(self, model, *, seed):
        sims = pair_similarity(model, [a for a, _ in self.pairs], [b for _, b in self.pairs])
        return TaskOutput(scores=[Score(metric="cosine", value=float(np.mean(sims)), n=len(self.pairs))],
                          n_items=len(self.pairs))
""",
    "compeval_toyplug/models.py": """import numpy as np
from pydantic import Field

from compeval.models.options import ModelOptions
from compeval.models.protocol import ModelConfig
from compeval.models.registry import register_model


class CountsOptions(ModelOptions):
    scale: float = Field(1.0, gt=0, description="weight of the character count")


class Counts:
    def __init__(self, scale):
        self.scale = scale
        self.config = ModelConfig(family="toycounts.v1", name="toycounts", params={"scale": scale})

    def encode(self, texts):
        return np.array([[len(t.split()), self.scale * len(t)] for t in texts], dtype=np.float32)


@register_model("toycounts", 1, "words and characters of a text (the plug-in's family)", ("toycounts",),
                options=CountsOptions)
def _counts(resolved, builder):
    return Counts(resolved.options.scale)
""",
    "compeval_toyplug/report.py": """from compeval.report.sections import register_section


register_section("toyplug", title="Toy plug-in", order=90, build=lambda ctx: None, task_order=["toyplug-pairs"])
""",
}


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """The plug-in package, installed with pip (offline, no build isolation) into its own folder."""
    root = tmp_path_factory.mktemp("plugin")
    sha = hashlib.sha256(PAIRS.encode()).hexdigest()
    for rel, text in PLUGIN.items():
        (root / "pkg" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "pkg" / rel).write_text(text.replace("{sha}", sha), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                           "--no-index", "--target", str(root / "site"), str(root / "pkg")],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.skip(f"pip cannot build the plug-in here: {proc.stderr.strip().splitlines()[-1:]}")
    (root / "data" / "toyplug-pairs").mkdir(parents=True)
    (root / "data" / "toyplug-pairs" / "pairs.tsv").write_text(PAIRS, encoding="utf-8")
    return root


def test_installed_plugin_fills_every_registry_with_its_origin(plugin, scratch, monkeypatch):
    monkeypatch.syspath_prepend(str(plugin / "site"))
    importlib.invalidate_caches()
    for r in REGISTRIES:
        r.forget_discovery()
    try:
        assert task_registry.TASKS["toyplug-pairs"].metadata.suite == "toyplug"
        assert task_registry.TASKS.origin("toyplug-pairs") == "compeval_toyplug.tasks:ToyPlugPairs"
        assert "toyplug" in task_registry.suites()
        assert model_registry.resolve_family("toycounts").description.startswith("words and characters")
        assert data_registry.SOURCES.origin("toyplug-pairs") == (
            "entry point toyplug = compeval_toyplug.sources (compeval.data, package compeval-toyplug)")
        assert section_registry.section("toyplug").task_order == ("toyplug-pairs",)
        assert "sts3k" in task_registry.TASKS and "hashbag" in model_registry.FAMILIES  # the built-ins too
        assert not plugins.BROKEN
    finally:
        for name in [m for m in sys.modules if m.startswith("compeval_toyplug")]:
            del sys.modules[name]


def _cli(plugin: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin / "site"), str(SRC)]), "COLUMNS": "200",
           "COMPEVAL_DATA_DIR": str(plugin / "data")}
    proc = subprocess.run([sys.executable, "-m", "compeval", *args], capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_plugin_is_listed_and_runs_from_the_command_line(plugin, tmp_path):
    tasks = _cli(plugin, "tasks")
    assert "toyplug (1 task)" in tasks
    assert [line for line in tasks.splitlines() if "toyplug-pairs" in line and "mean cosine of the plug-in" in line]
    models = _cli(plugin, "models", "--wide")
    assert [line for line in models.splitlines() if line.split()[:2] == ["toycounts.v1", "family"]]
    options = _cli(plugin, "models", "toycounts", "--wide")
    assert [line for line in options.splitlines() if line.split()[:2] == ["scale", "1"]
            and "weight of the character count" in line]

    out = tmp_path / "results"
    _cli(plugin, "run", "--model", "toycounts,scale=2", "--task", "toyplug-pairs", "-o", str(out), "--offline",
         "--no-cache", "--no-report")
    (path,) = out.glob("*/toyplug-pairs*.json")
    result = json.loads(path.read_text())
    # the score, computed here independently: the mean cosine of [words, 2 × characters] of each pair
    pairs = [line.split("\t") for line in PAIRS.splitlines()]
    vec = [np.array([[len(t.split()), 2 * len(t)] for t in pair], dtype=np.float64) for pair in pairs]
    expected = np.mean([a @ b / np.linalg.norm(a) / np.linalg.norm(b) for a, b in vec])
    (score,) = result["scores"]
    assert score["metric"] == "cosine" and score["n"] == 3
    assert score["value"] == pytest.approx(expected, abs=1e-6)
    assert result["data"][0]["source"] == "toyplug-pairs" and result["data"][0]["verified"] is True


def test_a_broken_or_clashing_plugin_is_recorded_and_the_others_still_load(tmp_path, scratch, monkeypatch):
    """importlib.metadata reads a .dist-info folder on sys.path: one written by hand stands for an installed
    package whose entry points fail (a missing module; a task named like a built-in one)."""
    dist = tmp_path / "badplug-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: badplug\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[compeval.tasks]\nmissing = badplug_no_such_module\n"
                                           "clash = badplug_clash\n", encoding="utf-8")
    (tmp_path / "badplug_clash.py").write_text(
        "from compeval.tasks.base import Task, TaskMetadata\nfrom compeval.tasks.registry import register_task\n\n\n"
        "@register_task\nclass Again(Task):\n"
        "    metadata = TaskMetadata(name='sts3k', suite='sts', description='x', main_metric='spearman')\n",
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    task_registry.TASKS.forget_discovery()
    try:
        with pytest.warns(UserWarning, match="could not import entry point"):
            assert task_registry.TASKS["sts3k"].__module__ == "compeval.tasks.sts.tasks"  # the built-in stands
        missing = plugins.BROKEN["entry point missing = badplug_no_such_module (compeval.tasks, package badplug)"]
        assert missing.startswith("ModuleNotFoundError")
        clash = plugins.BROKEN["entry point clash = badplug_clash (compeval.tasks, package badplug)"]
        assert clash.startswith("RegistryError: task 'sts3k' is registered twice: by compeval.tasks.sts.tasks:STS3k "
                                "and by badplug_clash:Again")
        assert "minimal-pairs" in task_registry.TASKS  # the other tasks are all there
    finally:
        sys.modules.pop("badplug_clash", None)
