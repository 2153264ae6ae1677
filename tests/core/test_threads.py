"""The CPU thread policy (``compeval/threads.py``): free cores from ``/proc/stat``, the counts it sets, the setting."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

from compeval import threads
from compeval.context import RunContext
from compeval.errors import CompevalError
from compeval.models.batching import Budget, encode_budgeted


class Machine:
    """A fake clock and ``/proc/stat``: ``others`` cores' worth of other programs' work per second."""

    def __init__(self, policy: threads.ThreadPolicy, monkeypatch, cpus: int = 2):
        self.now, self.busy, self.own = 100.0, 0.0, 0.0
        policy.cpus = list(range(cpus))
        monkeypatch.setattr(policy, "_busy_seconds", lambda: self.busy)
        monkeypatch.setattr(threads.time, "monotonic", lambda: self.now)
        monkeypatch.setattr(threads.time, "process_time", lambda: self.own)
        monkeypatch.setattr(threads.time, "sleep", self.advance)

    def advance(self, seconds: float, others: float = 0.0, ours: float = 0.0) -> None:
        self.now += seconds
        self.busy += (others + ours) * seconds
        self.own += ours * seconds


@pytest.mark.parametrize("value, expected", [("auto", "auto"), (" AUTO ", "auto"), (2, "2"), ("3", "3")])
def test_the_setting_takes_auto_or_a_positive_count(value, expected):
    assert threads.check_threads(value) == expected
    assert RunContext(threads=value).threads == expected


@pytest.mark.parametrize("value", [0, "0", "-1", "two", True, 1.5, "", None])
def test_a_bad_setting_is_one_line_naming_the_option(value):
    with pytest.raises(CompevalError) as err:
        RunContext(threads=value)
    assert str(err.value).startswith(f"--threads {value!r}: choose auto") and "\n" not in str(err.value)


def test_free_cores_are_the_cores_other_programs_leave(monkeypatch):
    policy = threads.ThreadPolicy()
    machine = Machine(policy, monkeypatch)
    assert policy.free_cores() is None  # a first look has nothing to compare with
    machine.advance(1.0, others=0.1, ours=2.0)  # our own two threads are never "others"
    assert policy.free_cores() == 2
    machine.advance(1.0, others=0.5, ours=1.5)  # a program next to our spinning threads gets half a core
    assert policy.free_cores() == 1
    machine.advance(1.0, others=1.0, ours=1.0)
    assert policy.free_cores() == 1
    machine.advance(1.0, others=2.0)
    assert policy.free_cores() == 0


def test_adapt_sets_the_free_cores_between_one_and_the_starting_count(monkeypatch):
    monkeypatch.setattr(torch, "get_num_threads", lambda: state["n"])
    monkeypatch.setattr(torch, "set_num_threads", lambda n: state.update(n=n))
    state = {"n": 2}
    with threads.installed("auto") as policy:
        machine = Machine(policy, monkeypatch, cpus=4)
        assert threads.adapt() == 2  # first look: the starting count, which is also the ceiling
        machine.advance(0.1, others=3.0)
        assert threads.adapt() == 2  # looked again only after RECHECK_SECONDS
        machine.advance(0.3, others=3.0)
        assert threads.adapt() == 1 and state["n"] == 1
        machine.advance(0.3, others=0.0, ours=1.0)
        assert threads.adapt() == 2  # never above the starting count, though 4 cores are free
        with threads.sharing(2):
            assert threads.adapt() == 1
        assert policy.record() == {"threads_setting": "auto", "threads_used": "1,2"}
    assert threads.adapt() is None and threads.record() == {}


def test_a_fixed_count_is_set_at_once_and_restored_after(monkeypatch):
    before = torch.get_num_threads()
    with threads.installed("1") as policy:
        assert torch.get_num_threads() == 1 and threads.adapt() == 1
        assert threads.workers(5) == 1  # N: one job at a time
        assert policy.record() == {"threads_setting": "1", "threads_used": "1"}
    assert torch.get_num_threads() == before


def test_workers_are_the_free_cores_under_auto(monkeypatch):
    with threads.installed("auto") as policy:
        machine = Machine(policy, monkeypatch, cpus=2)
        policy.ceiling = 2
        assert threads.workers(1) == 1  # one job needs no pool
        assert threads.workers(3) == 2  # two looks, RECHECK_SECONDS apart, on a quiet machine
        machine.advance(0.5, others=1.0)
        assert threads.workers(3) == 1
    assert threads.workers(3) == 1  # outside a run


def test_without_proc_stat_auto_keeps_the_starting_count(monkeypatch):
    with threads.installed("auto") as policy:
        policy.cpus = None  # not Linux
        assert threads.adapt() == torch.get_num_threads()
        assert policy.free_cores() is None


@pytest.mark.skipif(not os.path.exists("/proc/stat") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs Linux and two cores")
def test_a_busy_program_is_seen_on_the_real_machine():
    policy = threads.ThreadPolicy()
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(1.0)
        policy.free_cores()
        time.sleep(1.0)
        free = policy.free_cores()
    finally:
        spin.kill()
        spin.wait()
    assert free is not None and free <= len(policy.cpus) - 1


def test_the_encoder_looks_before_each_batch(monkeypatch):
    seen = []
    monkeypatch.setattr(threads, "adapt", lambda: seen.append("adapt"))

    def forward(batch):
        seen.append(len(batch))
        return np.ones((len(batch), 3), dtype=np.float32)

    texts = ["a b c d", "a b", "a", "a b c"]
    out = encode_budgeted(texts, [4, 2, 1, 3], forward, Budget(tokens=6))
    assert out.shape == (4, 3)
    assert seen == ["adapt", 1, "adapt", 2, "adapt", 1]  # budget 6: [4], [3, 2], [1]
