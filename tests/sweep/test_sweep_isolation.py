"""The pinned sweep over its replicas: all of it runs; in isolated workers a forward that calls os._exit
fails alone, a simulated CUDA out-of-memory above a token budget completes after back-off with the vectors
of an unconstrained run, a hang is stopped at its timeout, and a killed sweep resumes only what is missing."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from sweep_replicas import TASK

SRC = Path(__file__).resolve().parents[2] / "src"


def test_the_full_pinned_sweep_runs_over_its_replicas(replicas, tmp_path):
    from compeval.models.model_lists import expand_models
    from compeval.runner import run

    specs = [s for s in expand_models(["compeval:sweep"]) if "/" in s.split(",")[0]]
    assert len(specs) == 50 and all(replicas[s.split(",")[0]] == s for s in specs)
    summary = run(specs, [TASK], tmp_path / "out", cache_dir=None, progress=False, isolate=False)
    assert [o.status for o in summary.outcomes] == ["done"] * 50, [o.error for o in summary.failed]
    folders = {json.loads(p.read_text())["model"]["name"] for p in (tmp_path / "out").glob("*/minimal-pairs*.json")}
    assert folders == {s.split(",")[0] for s in specs}


def _cli(args: list[str], **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}
    return subprocess.Popen([sys.executable, "-m", "compeval", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **kw)


def test_faults_fail_alone_and_a_killed_sweep_resumes_only_the_missing_models(replicas, tmp_path):
    from compeval.cache.store import EmbeddingStore
    from compeval.models.registry import load_model

    a, b, c = (replicas[n] for n in ("BAAI/bge-small-en-v1.5", "thenlper/gte-small", "intfloat/e5-small-v2"))
    exit_, oom, hang = (replicas[f"compeval-faults/{n}"] for n in ("exit-on-forward", "oom-above-budget",
                                                                   "hang-on-forward"))
    out, cache = tmp_path / "out", tmp_path / "cache"
    common = ["-t", TASK, "-o", str(out), "--cache-dir", str(cache), "--no-report", "--isolate"]
    first = tmp_path / "first.txt"
    first.write_text("\n".join([a, b, hang, c]) + "\n")
    # 1. a sweep killed (SIGKILL, driver and workers) while the third model hangs
    proc = _cli(["run", "--models-file", str(first), *common, "--model-timeout", "600"])
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if len(list(out.glob("*/minimal-pairs*.json"))) == 2 and list(out.glob("logs/*hang-on-forward*")):
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(list(out.glob("*/minimal-pairs*.json"))) == 2
    # 2. the same sweep with the faults added: the two finished models are not run again
    second = tmp_path / "second.txt"
    second.write_text(f"# resumed, with faults\n{a}\n{b}\n{exit_}\n{oom}   # OOM above {24} tokens\n{hang}\n{c}\n")
    proc = _cli(["run", "--models-file", str(second), *common, "--model-timeout", "45", "--max-batch-tokens", "256"])
    stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 1, stderr
    assert "4 job(s) done" not in stderr and "2 skipped" in stderr and "2 failed" in stderr, stderr
    lines = [ln for ln in stderr.splitlines() if "✗" in ln]
    assert any("exit-on-forward" in ln and "exited with status 3" in ln and "__worker.log" in ln for ln in lines)
    assert any("hang-on-forward" in ln and "timed out after 45s" in ln for ln in lines)
    results = {json.loads(p.read_text())["model"]["name"]: json.loads(p.read_text())
               for p in out.glob("*/minimal-pairs*.json")}
    assert set(results) == {s.split(",")[0] for s in (a, b, c, oom)}
    settings = results["compeval-faults/oom-above-budget"]["model"]["settings"]
    assert settings["max_batch_tokens"] <= 24 < 256 and settings["oom_backoffs"] >= 3
    # the out-of-memory replica's cached vectors equal an unconstrained run (one text per batch)
    import sqlite3

    store = EmbeddingStore(cache, results["compeval-faults/oom-above-budget"]["model"]["id"])
    texts = [r[0] for r in sqlite3.connect(store.path).execute("SELECT text FROM vectors")]
    assert len(texts) > 10, "the OOM replica's vectors are in the cache"
    cached = store.get_vectors(texts)
    reference = load_model(oom + ",batch=1")
    np.testing.assert_allclose(np.stack([cached[t] for t in texts]), reference.encode(texts), rtol=1e-5, atol=1e-6)


def test_under_ray_each_model_is_its_own_task_and_a_crash_fails_it_alone(replicas, tmp_path):
    pytest.importorskip("ray")
    from compeval.runner import run
    from compeval.runner.executors import make_executor

    good, crash = replicas["thenlper/gte-small"], replicas["compeval-faults/exit-on-forward"]
    executor = make_executor("ray", num_cpus=2)
    summary = run([good, crash], [TASK], tmp_path / "out", cache_dir=tmp_path / "cache", progress=False,
                  executor=executor, isolate=True, model_timeout=300)
    status = {o.model.split(",")[0]: o for o in summary.outcomes}  # display: name plus shown params
    assert status["thenlper/gte-small"].status == "done"
    failed = status["compeval-faults/exit-on-forward"]
    assert failed.status == "failed" and "Ray worker died" in failed.error and "__worker.log" in failed.error
