"""Hostile inputs to ``--threads`` and ``Task.staged``: one precise line, the same outcome at any load, finished
results kept on Ctrl-C."""
from __future__ import annotations

import json
import threading
import time

import pytest

from compeval import threads
from compeval.context import RunContext
from compeval.errors import CompevalError
from compeval.results.schema import Score
from compeval.runner.runner import run
from compeval.tasks.base import Task, TaskMetadata, TaskOutput


def _free_cores(monkeypatch, n: int) -> None:
    monkeypatch.setattr(threads.ThreadPolicy, "free_now", lambda self: n)
    monkeypatch.setattr(threads.ThreadPolicy, "starting", lambda self: n)  # a process allowed n threads


def _output(value: float = 1.0) -> TaskOutput:
    return TaskOutput(scores=[Score(subset="all", metric="x", value=value, n=2)], n_items=2)


def _task(name: str, staged) -> Task:
    """A task named ``name`` whose ``staged(model, seed)`` is ``staged``; its evaluate is the staged call."""

    class Staging(Task):
        metadata = TaskMetadata(name=name, suite="test", description="a staging task", main_metric="x")

        def texts(self) -> list[str]:
            return ["a dog runs", "a cat sleeps"]

        def evaluate(self, model, *, seed):
            return self.staged(model, seed=seed)()

    Staging.staged = lambda self, model, *, seed: staged(model)
    return Staging()


def _quick(model):
    model.encode(["a dog runs"])
    return _output


@pytest.mark.parametrize("value", ["99999999999999999999", 10 ** 30, "1025"])
def test_a_huge_thread_count_is_one_line(value):
    with pytest.raises(CompevalError) as err:
        RunContext(threads=value)
    assert str(err.value).startswith(f"--threads {value!r}: choose auto or at most 1024") and "\n" not in str(err.value)


def test_auto_without_proc_stat_keeps_the_starting_count_at_every_batch(monkeypatch):
    monkeypatch.setattr(threads, "_own_cpus", lambda: None)  # not Linux: no sched_getaffinity
    slept = []
    monkeypatch.setattr(threads.time, "sleep", slept.append)
    import torch

    with threads.installed("auto"):
        first = threads.adapt()
        assert threads.adapt() == threads.adapt() == first == torch.get_num_threads()
        assert threads.workers(3) == min(3, first) and slept == []  # no look to wait for


@pytest.mark.parametrize("load", [1, 2])
def test_a_staged_part_that_is_not_a_call_fails_its_job_in_one_line_at_any_load(tmp_path, monkeypatch, load):
    _free_cores(monkeypatch, load)
    summary = run(["hashbag"], [_task("not-a-call", lambda model: 5), _task("fine", _quick)], tmp_path,
                  cache_dir=None, device="cpu", report=False)
    by_task = {o.task: o for o in summary.outcomes}
    assert by_task["fine"].status == "done"
    assert by_task["not-a-call"].status == "failed"
    assert by_task["not-a-call"].error == ("task not-a-call: staged() returned a int; return the call that "
                                           "finishes the evaluation, or None")


@pytest.mark.parametrize("load", [1, 2])
def test_a_rest_that_returns_no_task_output_fails_its_job_in_one_line(tmp_path, monkeypatch, load):
    _free_cores(monkeypatch, load)
    summary = run(["hashbag"], [_task("a-dict", lambda model: lambda: {"scores": []}), _task("fine", _quick)],
                  tmp_path, cache_dir=None, device="cpu", report=False)
    by_task = {o.task: o for o in summary.outcomes}
    assert by_task["fine"].status == "done"
    assert by_task["a-dict"].error == "task a-dict: its evaluation returned a dict, not a TaskOutput"


@pytest.mark.parametrize("load", [1, 2])
def test_a_rest_that_calls_the_model_fails_at_any_load(tmp_path, monkeypatch, load):
    """Beside other jobs' model parts its calls would race them and add to their cache counts."""
    _free_cores(monkeypatch, load)

    def calls_model(model):
        return lambda: _output(float(model.encode(["a zebra"]).sum()))

    summary = run(["hashbag"], [_task("calls-model", calls_model), _task("fine", _quick)], tmp_path,
                  cache_dir=None, device="cpu", report=False)
    by_task = {o.task: o for o in summary.outcomes}
    assert by_task["fine"].status == "done"
    assert by_task["calls-model"].status == "failed"
    assert by_task["calls-model"].error.startswith("task calls-model: its staged() rest called the model")
    result = json.loads(by_task["fine"].path.read_text())
    assert result["cache"]["requested"] == 1  # its own call only


def _written(folder) -> list[str]:
    return sorted(p.stem for p in folder.rglob("*.json") if p.stem in {"first", "slow", "slower", "queued"})


def _interrupt(model):
    raise KeyboardInterrupt


def test_ctrl_c_keeps_the_results_of_finished_rests(tmp_path, monkeypatch):
    _free_cores(monkeypatch, 2)
    go, first_done = threading.Event(), threading.Event()

    def first(model):
        def rest():
            go.wait(5)
            first_done.set()
            return _output()
        return rest

    def interrupted(model):
        go.set()
        assert first_done.wait(5)
        time.sleep(0.3)  # its future is done, not yet written
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(["hashbag"], [_task("first", first), _task("interrupted", interrupted)], tmp_path, cache_dir=None,
            device="cpu", report=False)
    assert _written(tmp_path) == ["first"]


def test_ctrl_c_starts_no_queued_rest(tmp_path, monkeypatch):
    _free_cores(monkeypatch, 2)
    ran = []

    def slow(model):
        return lambda: time.sleep(1.0) or _output()

    def queued(model):
        return lambda: ran.append("queued") or _output()

    tasks = [_task("slow", slow), _task("slower", slow), _task("queued", queued), _task("interrupted",
                                                                                        lambda m: _interrupt(m))]
    with pytest.raises(KeyboardInterrupt):
        run(["hashbag"], tasks, tmp_path, cache_dir=None, device="cpu", report=False)
    assert ran == []  # "slow" and "slower" held both workers; the queued rest was cancelled


def test_auto_runs_no_more_rests_at_once_than_the_threads_the_process_was_given(tmp_path, monkeypatch):
    """Ray gives a one-CPU job OMP_NUM_THREADS=1; an API user may call torch.set_num_threads(1) first."""
    import torch

    monkeypatch.setattr(threads.ThreadPolicy, "free_now", lambda self: 2)  # an idle machine
    names = []

    def named(model):
        return lambda: names.append(threading.current_thread().name) or _output()

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        summary = run(["hashbag"], [_task("a", named), _task("b", named)], tmp_path, cache_dir=None, device="cpu",
                      report=False)
    finally:
        torch.set_num_threads(before)
    assert [o.status for o in summary.outcomes] == ["done", "done"]
    assert names == ["MainThread", "MainThread"]


def test_two_runs_in_two_threads_each_record_their_own_setting(tmp_path):
    import torch

    before = torch.get_num_threads()
    meet = threading.Barrier(2)

    def both_inside(model):
        meet.wait(10)  # both runs' policies installed

        def rest():
            meet.wait(10)  # neither has written yet
            return _output()
        return rest

    settings: dict[str, str] = {}

    def one_run(setting: str) -> None:
        summary = run(["hashbag"], [_task("meet", both_inside)], tmp_path / setting, cache_dir=None, device="cpu",
                      report=False, threads=setting)
        settings[setting] = json.loads(summary.outcomes[0].path.read_text())["environment"]["threads_setting"]

    runs = [threading.Thread(target=one_run, args=(s,)) for s in ("1", "auto")]
    try:
        for t in runs:
            t.start()
        for t in runs:
            t.join(20)
    finally:
        torch.set_num_threads(before)
    assert settings == {"1": "1", "auto": "auto"}
    assert threads.record() == {}  # no policy left behind
