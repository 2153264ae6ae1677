"""Jobs whose trained heads overlap (``Task.staged``, ``runner/loop._evaluate``) write what one job at a time writes."""
from __future__ import annotations

import json
import threading
import time

import torch

from compeval import threads
from compeval.results.compare import differences
from compeval.results.schema import Score
from compeval.runner.runner import run
from compeval.tasks.base import Task, TaskMetadata, TaskOutput
from compeval.tasks.probing import evaluation

CHEAP = "n_train=60,n_test=30,classifiers=logreg+mlp,mlp_max_iter=40,generator_seed=3"
TASKS = [f"probe-has-x,words=school,{CHEAP}", f"probe-agent-of-verb,pairs=professor:recommend,{CHEAP}",
         f"probe-has-x,words=dog,{CHEAP}"]


def _free_cores(monkeypatch, n: int) -> None:
    monkeypatch.setattr(threads.ThreadPolicy, "free_now", lambda self: n)
    monkeypatch.setattr(threads.ThreadPolicy, "starting", lambda self: max(n, 1))  # a process allowed n threads


def _heads_trained_on(monkeypatch) -> list[str]:
    """The thread each probing task's heads trained on."""
    names: list[str] = []
    fit = evaluation._fit_and_score

    def record(*args, **kwargs):
        names.append(threading.current_thread().name)
        return fit(*args, **kwargs)

    monkeypatch.setattr(evaluation, "_fit_and_score", record)
    return names


def test_overlapping_jobs_write_the_results_of_one_job_at_a_time(tmp_path, monkeypatch):
    names = _heads_trained_on(monkeypatch)
    one = run(["hashbag"], TASKS, tmp_path / "one", cache_dir=None, device="cpu", threads="1")
    assert names == ["MainThread"] * 3  # N: one job at a time, here
    names.clear()
    _free_cores(monkeypatch, 2)
    overlap = run(["hashbag"], TASKS, tmp_path / "overlap", cache_dir=None, device="cpu", threads="auto")
    assert len(names) == 3 and all(n.startswith("compeval-job") for n in names)
    assert [o.status for o in one.outcomes] == [o.status for o in overlap.outcomes] == ["done"] * 3
    assert differences(tmp_path / "one", tmp_path / "overlap", tol=0.0) == []
    # the cache counts of each job cover its own model part only, as in the one-at-a-time run
    for a, b in zip(sorted(one.outcomes, key=lambda o: o.task), sorted(overlap.outcomes, key=lambda o: o.task)):
        ra, rb = (json.loads(o.path.read_text()) for o in (a, b))
        assert ra["cache"] == rb["cache"] and ra["cache"]["requested"] > 0
        assert rb["environment"]["threads_setting"] == "auto" and ra["environment"]["threads_setting"] == "1"


def test_a_busy_machine_runs_staged_jobs_one_at_a_time(tmp_path, monkeypatch):
    names = _heads_trained_on(monkeypatch)
    _free_cores(monkeypatch, 1)
    summary = run(["hashbag"], TASKS[:2], tmp_path, cache_dir=None, device="cpu")
    assert [o.status for o in summary.outcomes] == ["done", "done"]
    assert names == ["MainThread", "MainThread"]


class _Staged(Task):
    """Stages its evaluation: the model's part, then a rest that fails where ``fail`` is set."""

    metadata = TaskMetadata(name="staged-works", suite="test", description="a staging task", main_metric="x")
    fail = False

    def texts(self) -> list[str]:
        return ["a dog runs", "a cat sleeps"]

    def staged(self, model, *, seed):
        vectors = model.encode(self.texts())

        def rest() -> TaskOutput:
            if self.fail:
                raise ValueError("the heads diverged")
            return TaskOutput(scores=[Score(subset="all", metric="x", value=float(abs(vectors).sum()), n=2)],
                              n_items=2)

        return rest

    def evaluate(self, model, *, seed):
        return self.staged(model, seed=seed)()


class _StagedFails(_Staged):
    metadata = TaskMetadata(name="staged-fails", suite="test", description="a staging task that fails",
                            main_metric="x")
    fail = True


def test_a_failure_in_a_staged_part_fails_only_its_job(tmp_path, monkeypatch):
    _free_cores(monkeypatch, 2)
    summary = run(["hashbag"], [_StagedFails(), _Staged()], tmp_path, cache_dir=None, device="cpu")
    by_task = {o.task: o for o in summary.outcomes}
    assert by_task["staged-works"].status == "done" and by_task["staged-works"].path.is_file()
    failed = by_task["staged-fails"]
    assert failed.status == "failed" and "\n" not in failed.error and "the heads diverged" in failed.error
    logs = list((tmp_path / "logs").glob("*staged-fails.log"))
    assert len(logs) == 1 and "ValueError: the heads diverged" in logs[0].read_text()


class _SeesThreads(_Staged):
    """Records torch's thread count inside its rest, before and after the other job's rest may have ended."""

    metadata = TaskMetadata(name="sees-threads-a", suite="test", description="records threads", main_metric="x")
    seen: list[int] = []

    def staged(self, model, *, seed):
        rest = super().staged(model, seed=seed)

        def counted() -> TaskOutput:
            _SeesThreads.seen.append(torch.get_num_threads())
            time.sleep(0.3)  # the other job's rest runs and ends meanwhile
            _SeesThreads.seen.append(torch.get_num_threads())
            return rest()

        return counted


class _SeesThreadsB(_SeesThreads):
    metadata = TaskMetadata(name="sees-threads-b", suite="test", description="records threads", main_metric="x")


def test_overlapping_rests_compute_on_one_thread_each(tmp_path, monkeypatch):
    """torch's BLAS thread count is process-wide: a second thread in one job would split the other job's
    products (a lone head's bits) differently, so every thread computes on one while jobs overlap."""
    _free_cores(monkeypatch, 2)
    _SeesThreads.seen = []
    before = torch.get_num_threads()
    summary = run(["hashbag"], [_SeesThreads(), _SeesThreadsB()], tmp_path, cache_dir=None, device="cpu")
    assert [o.status for o in summary.outcomes] == ["done", "done"]
    assert _SeesThreads.seen == [1, 1, 1, 1]
    assert torch.get_num_threads() == before  # restored once the jobs are done
