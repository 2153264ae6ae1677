"""The model session and the run context: one lifecycle for every executor, one place where a job's
exceptions are caught (traceback to OUTPUT/logs/, the grid goes on), run settings that reach factories
and tasks without entering any id."""
from __future__ import annotations

from pathlib import Path

import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

from compeval.context import DEFAULT_CONTEXT, RunContext, check_device, resolve_device
from compeval.errors import CompevalError
from compeval.models.fingerprint import PROBE_TEXTS
from compeval.models.protocol import CachedEncoder, Closeable, Loadable, ModelConfig
from compeval.models.registry import ModelBuilder
from compeval.runner import run
from compeval.tasks.base import Task, TaskMetadata, TaskOutput
from compeval.tasks.scoring import pair_similarity

GENERATED = ["invariance-relation,bootstrap=50", "invariance-qa,bootstrap=50"]  # no data files needed


class Broken:
    """A user's model with a bug: every encode raises a plain ValueError."""

    config = ModelConfig(family="python.v1", name="broken")

    def encode(self, texts):
        raise ValueError("broken model: shapes do not match")


def test_a_crashing_model_fails_its_own_jobs_and_the_grid_goes_on(tmp_path):
    out = tmp_path / "out"
    summary = run([Broken(), "glove-6b-50d"], GENERATED, out, cache_dir=None)
    # A Python object's name carries its content fingerprint (issue 18): "broken,fp=<12 hex>".
    status = {(o.model.split(",fp=")[0], o.task.split("__")[0]): o for o in summary.outcomes}
    assert {k: o.status for k, o in status.items()} == {
        ("broken", "invariance-relation"): "failed", ("broken", "invariance-qa"): "failed",
        ("glove-6b-50d", "invariance-relation"): "done", ("glove-6b-50d", "invariance-qa"): "done"}
    written = [Path(o.path) for o in summary.outcomes if o.status == "done"]
    assert sorted(p.name for p in written) == ["invariance-qa__bootstrap-50.json", "invariance-relation__bootstrap-50.json"]
    # Only glove's folder (named by its configuration id) holds results; the broken model wrote none.
    assert {p.parent for p in out.glob("*/*.json")} == {written[0].parent}
    for task in ("invariance-relation__bootstrap-50", "invariance-qa__bootstrap-50"):
        error = status[("broken", task.split("__")[0])].error
        # One line on the screen, naming the exception and where its traceback went (logs/<model folder>__<task>).
        assert "\n" not in error and error.startswith("ValueError: broken model")
        log = Path(error.split("traceback in ", 1)[1].rstrip(")"))
        assert log.parent == out / "logs" and log.name.startswith("broken__fp-") and log.name.endswith(f"__{task}.log")
        text = log.read_text()
        assert "Traceback (most recent call last)" in text and "raise ValueError" in text


class _LoadsBadly(Task):
    metadata = TaskMetadata(name="loads-badly", suite="test", description="a task whose loader has a bug",
                            main_metric="x")

    def load(self, data):
        raise KeyError("column 'gold'")

    def evaluate(self, model, *, seed):  # pragma: no cover - never reached
        raise AssertionError


class _SeesContext(Task):
    """Records the run settings it was given and scores a pair with a baseline from the run's builder."""

    metadata = TaskMetadata(name="sees-context", suite="test", description="records its RunContext",
                            main_metric="x")

    def load(self, data):
        self.seen = self.context
        self.baseline = self.context.model_builder("overlap")

    def evaluate(self, model, *, seed):
        from compeval.results.schema import Score

        value = float(pair_similarity(self.baseline, ["a dog runs"], ["a dog sleeps"])[0])
        return TaskOutput(scores=[Score(subset="all", metric="x", value=value, n=1)], n_items=1)


def test_a_task_that_fails_to_load_fails_only_its_jobs(tmp_path):
    summary = run(["hashbag"], [_LoadsBadly(), "invariance-relation,bootstrap=50"], tmp_path, cache_dir=None)
    by_task = {o.task: o for o in summary.outcomes}
    assert by_task["invariance-relation__bootstrap-50"].status == "done"
    assert by_task["loads-badly"].status == "failed" and by_task["loads-badly"].error.startswith("KeyError")
    assert "Traceback" in (tmp_path / "logs" / "loads-badly.log").read_text()


def test_the_cli_shows_no_traceback_for_a_failing_job(tmp_path):
    """A Python model that raises, through the CLI's reporter: one line per failed job, no traceback."""
    script = tmp_path / "go.py"
    script.write_text(
        "import compeval.runner\n"
        "from compeval.models.protocol import ModelConfig\n"
        "class Broken:\n"
        "    config = ModelConfig(family='python.v1', name='broken')\n"
        "    def encode(self, texts):\n"
        "        raise ValueError('broken model')\n"
        "real = compeval.runner.run\n"
        "compeval.runner.run = lambda models, *a, **k: real([Broken(), *models], *a, **k)\n"
        "from compeval.cli import main\n"
        "main()\n")
    r = subprocess.run([sys.executable, str(script), "run", "-m", "glove-6b-50d", "-t", GENERATED[0],
                        "-o", str(tmp_path / "o"), "--no-cache"], capture_output=True, text=True)
    assert "Traceback" not in r.stderr  # (the exit status of a run with failed jobs is issue 20's first bullet)
    assert re.search(r"✗ broken,fp=[0-9a-f]{12} × invariance-relation__bootstrap-50: ValueError: broken model",
                     " ".join(r.stderr.split())), r.stderr
    assert [p.name for p in (tmp_path / "o").glob("glove-6b-50d*/*.json")] == ["invariance-relation__bootstrap-50.json"]


def test_run_settings_reach_tasks_and_builders_but_no_id(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPEVAL_BNC_DIR", raising=False)
    task = _SeesContext()
    a = run(["hashbag"], [task], tmp_path / "a", cache_dir=None, device="cpu", batch_size=7, seed=3,
            bnc_dir=tmp_path / "bnc")
    seen = task.seen
    assert (seen.device, seen.batch_size, seen.seed, seen.bnc_dir) == ("cpu", 7, 3, tmp_path / "bnc")
    assert seen.torch_device() == "cpu" and seen.model_builder is not None
    assert "COMPEVAL_BNC_DIR" not in __import__("os").environ  # travels in the context, not the environment
    assert isinstance(task.baseline, CachedEncoder)  # the run's builder: behind the run's cache
    direct = ModelBuilder()("overlap").score_pairs(["a dog runs"], ["a dog sleeps"])[0]
    assert a.outcomes[0].main_score == direct > 0
    b = run(["hashbag"], [_SeesContext()], tmp_path / "b", cache_dir=None, device="auto", batch_size=2)
    assert [o.path.relative_to(tmp_path / "b") for o in b.outcomes] == \
        [o.path.relative_to(tmp_path / "a") for o in a.outcomes]  # same model and task ids/slugs
    # Outside a run a task sees the defaults.
    assert _SeesContext().context is DEFAULT_CONTEXT and DEFAULT_CONTEXT.device == "auto"


def test_the_device_reaches_model_factories_not_their_id(tmp_path):
    st = pytest.importorskip("sentence_transformers")  # noqa: F841
    cpu = ModelBuilder(device="cpu", batch_size=5)("all-MiniLM-L6-v2")
    auto = ModelBuilder()("all-MiniLM-L6-v2")
    assert cpu.setup.device == "cpu" and cpu.device == "cpu" and cpu.batch_size == 5
    # the builder hands its models a resolved device: a builder made outside a run resolves "auto" once
    assert auto.setup.device == auto.device == resolve_device("auto") and auto.batch_size == 64
    assert cpu.config.id == auto.config.id


def test_device_is_resolved_in_one_place_with_one_line_errors():
    assert resolve_device("cpu") == "cpu" and check_device(" CPU ") == "cpu"
    torch = pytest.importorskip("torch")
    expected = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    assert resolve_device("auto") == expected
    with pytest.raises(CompevalError, match=r"--device 'gpu': choose auto\|cpu\|cuda\|cuda:N\|mps"):
        RunContext(device="gpu")
    if not torch.cuda.is_available():
        with pytest.raises(CompevalError, match="--device cuda:1: no CUDA device"):
            resolve_device("cuda:1")
        with pytest.raises(CompevalError, match="--device cuda:1: no CUDA device"):
            RunContext.for_run("out", cache_dir=None, device="cuda:1").resolve()  # as run() does, before any work
    with pytest.raises(CompevalError, match="--batch-size 0"):
        RunContext(batch_size=0)


def test_a_run_context_resolves_its_device_once_and_carries_the_value():
    ctx = RunContext.for_run("out", cache_dir=None, device="auto").resolve()
    assert ctx.device == "auto" and ctx.resolved_device == ctx.torch_device() == resolve_device("auto")
    assert ctx.resolve() is ctx  # resolved already: never again
    assert pickle.loads(pickle.dumps(ctx.with_builder(ModelBuilder()))).resolved_device == ctx.resolved_device
    assert ModelBuilder.for_context(ctx).device == ctx.resolved_device  # what the run's models are built with
    remote = RunContext.for_run("out", cache_dir=None)  # unresolved, as for a remote Ray cluster's workers
    assert remote.resolved_device is None and remote.torch_device() == resolve_device("auto")
    assert DEFAULT_CONTEXT.resolved_device is None


def test_cli_device_errors_are_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "compeval.cli", "run", "-m", "hashbag", "-t", GENERATED[0], "-o",
                        str(tmp_path), "--device", "tpu"], capture_output=True, text=True)
    assert r.returncode == 2 and "--device 'tpu': choose auto|cpu|cuda|cuda:N|mps" in r.stderr
    assert "Traceback" not in r.stderr and not any(tmp_path.iterdir())


def test_a_context_travels_without_its_builder():
    ctx = RunContext(device="cpu", seed=4).with_builder(ModelBuilder())
    back = pickle.loads(pickle.dumps(ctx))
    assert back == ctx and back.model_builder is None and back.seed == 4


def test_the_session_loads_only_what_is_missing_and_releases_the_model(tmp_path):
    """load → warm → encode-once → close, through the declared capabilities."""

    class Lazy:
        config = ModelConfig(family="python.v1", name="lazy")
        compeval_digest = "lazy-v1"  # its own identity: its vectors may be reused by a later run (issue 39)

        def __init__(self):
            self.loads = self.closes = self.encoded = 0

        def load(self):
            self.loads += 1

        def close(self):
            self.closes += 1

        def encode(self, texts):
            self.encoded += len(texts)
            return np.array([[len(t), 1.0] for t in texts])

    model = Lazy()
    assert isinstance(model, Loadable) and isinstance(model, Closeable)
    cache = tmp_path / "cache"
    run([model], GENERATED, tmp_path / "a", cache_dir=cache)
    assert (model.loads, model.closes) == (1, 1) and model.encoded > 0
    first = model.encoded
    run([model], GENERATED, tmp_path / "b", cache_dir=cache)  # every vector on disk: no weights needed
    # ... only the fixed probe texts that identify a Python object by its output (issue 18), a sample of the
    # run's own texts (issue 39) and those of the conformance checks every Python object passes before use
    # (issue 31), once per run
    from compeval.models.conformance import check_encoder
    from compeval.runner.runner import run_texts_sample
    from compeval.tasks.registry import get_tasks

    probe = Lazy()
    check_encoder(probe)
    tasks = [t for name in GENERATED for t in get_tasks(name)]
    sample = run_texts_sample(tasks, RunContext.for_run(tmp_path / "x", cache_dir=None))
    assert sample
    assert (model.loads, model.closes, model.encoded) == (1, 2, first + len(PROBE_TEXTS) + len(sample)
                                                          + probe.encoded)
