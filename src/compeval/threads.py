"""CPU threads: encoding on as many as the cores other programs leave free, and trained heads on one each, as many
jobs at once as there are free cores (docs/architecture.md, "CPU threads").

Why: torch's parallel regions wait for every sibling thread, and a sibling that another program has pushed off
its core holds each region for a scheduler time slice. On a 2-core machine with the other core busy, MiniLM
encoding on two threads fell to 0.19 of its quiet speed, while one thread kept all of its own. OpenMP's passive
wait or shorter spins kept about 0.55 but cost 7–11% on a quiet machine. So:

- encoding: before each batch, ``adapt()`` looks at the CPU time the machine's other processes used since its
  last look (``/proc/stat`` less this process's own CPU time) and sets torch's intra-op threads to the cores
  they left free, between 1 and the count the process started with;
- trained heads: one thread each (``training/device.py``: the same bits at any load), and the runner runs the
  heads of several jobs at once, one per free core (``workers``, ``Task.staged``); meanwhile every thread of
  the process computes on one (``sharing``: torch's BLAS count is process-wide).

The runner installs the run's ``--threads`` in every process that runs jobs (``installed``), for the thread
that runs them. ``N`` fixes torch's count at N and runs one job at a time. Where ``/proc/stat`` cannot be read
(not Linux) ``auto`` keeps the starting count. An encoder's vectors at different counts agree within
``FLOAT_TOLERANCE`` (some float32 sums split differently), so under ``auto`` a fresh-cache run on a busy machine
may round some vectors otherwise than on a quiet one, and a probe's stopping rule can turn that into another
accuracy (docs/architecture.md, "Reproducibility"); ``N`` gives the same bits at any load. Each result records
the setting and the counts used.
"""
from __future__ import annotations

import math
import os
import re
import sys
import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from .errors import CompevalError

#: Seconds between two looks at ``/proc/stat``: at 100 ticks a second per core, 0.25 s reads the other
#: programs' load to about 0.04 of a core, and a look costs about 50 µs.
RECHECK_SECONDS = 0.25
#: A core counts as taken when the other programs used at least this share of one over the last look (a busy
#: program next to two spinning threads of ours still gets about half a core).
TAKEN_SHARE = 0.35

#: The largest ``N``: above any machine's cores (more threads than cores only wait for each other), and far
#: below the counts that overflow torch's int or exhaust the threads a process may start.
MAX_THREADS = 1024

_AUTO = "auto"


def check_threads(value: object, flag: str = "--threads") -> str:
    """``auto`` or a positive whole number, as text (the run setting's one-line check)."""
    text = str(value).strip().lower()
    if text == _AUTO:
        return _AUTO
    if isinstance(value, bool) or not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        raise CompevalError(f"{flag} {value!r}: choose auto (the cores other programs leave free) or a "
                            "positive number of threads")
    if int(text) > MAX_THREADS:
        raise CompevalError(f"{flag} {value!r}: choose auto or at most {MAX_THREADS} threads")
    return str(int(text))


def _own_cpus() -> list[int] | None:
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


class ThreadPolicy:
    """``auto``: torch's intra-op threads follow the free cores; ``N``: exactly N threads. torch is imported at
    the first ``adapt`` (a run of static vectors never loads it)."""

    def __init__(self, setting: str = _AUTO):
        self.setting = check_threads(setting)
        self.ceiling: int | None = None if self.setting == _AUTO else int(self.setting)
        self.cpus = _own_cpus()
        self.used: set[int] = set()
        self._last: tuple[float, float, float] | None = None
        self._free: int | None = None  # the free cores at the last look
        self.share = 1  # jobs running at once (``sharing``)
        self._lock = threading.Lock()
        self._ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def _busy_seconds(self) -> float | None:
        """CPU seconds the cores this process may use have been busy (every process), or None if unknown."""
        if self.cpus is None:
            return None
        wanted = {f"cpu{c}" for c in self.cpus}
        busy = 0
        try:
            with open("/proc/stat", encoding="ascii") as f:
                for line in f:
                    name, _, rest = line.partition(" ")
                    if name in wanted:
                        ticks = [int(x) for x in rest.split()]
                        busy += sum(ticks[:8]) - ticks[3] - ticks[4]  # all but idle and iowait; guests are in user
        except (OSError, ValueError, IndexError):
            return None
        return busy / self._ticks

    def free_cores(self) -> int | None:
        """Cores the other programs left free since the last look (None: not measured yet, or unknown)."""
        with self._lock:  # the runner's job threads look too
            busy = self._busy_seconds()
            if busy is None:
                return None
            now, own = time.monotonic(), time.process_time()
            last, self._last = self._last, (now, busy, own)
        if last is None or now <= last[0]:
            return None
        others = max(0.0, (busy - last[1]) - (own - last[2])) / (now - last[0])
        return len(self.cpus) - math.ceil(max(others - TAKEN_SHARE, 0.0))

    def starting(self) -> int:
        """The count the process started with (the ceiling): OMP_NUM_THREADS, else torch's default."""
        if self.ceiling is None:
            import torch

            self.ceiling = torch.get_num_threads()
        return self.ceiling

    def _stale(self) -> bool:
        """No look yet (or none possible: not Linux), or the last is RECHECK_SECONDS old."""
        return self._last is None or time.monotonic() - self._last[0] >= RECHECK_SECONDS

    def threads(self, current: int) -> int:
        """The count ``adapt`` sets now in the calling thread, given its ``current`` one (``/proc/stat`` read at
        most every ``RECHECK_SECONDS``): the free cores; one while jobs overlap (``sharing``)."""
        if self.ceiling is None:
            self.ceiling = current  # the count the process started with: OMP_NUM_THREADS, else torch's default
        if self.share > 1:
            return 1  # jobs overlap: see ``sharing``
        if self.setting != _AUTO:
            return self.ceiling
        if self._free is None or self._stale():
            free = self.free_cores()
            self._free = free if free is not None else (self._free or self.ceiling)
        return max(1, min(self.ceiling, self._free) // self.share)

    def adapt(self) -> int:
        """Set torch's thread count (of the calling thread: OpenMP keeps one per thread) from the free cores;
        returns it."""
        import torch

        current = torch.get_num_threads()
        want = self.threads(current)
        if want != current:
            torch.set_num_threads(want)
        self.used.add(want)
        return want

    def free_now(self) -> int:
        """The free cores now: from the last look if recent, else from two looks ``RECHECK_SECONDS`` apart."""
        if self._last is None:
            self.free_cores()
            if self._last is not None:  # measurable: a second look to compare with
                time.sleep(RECHECK_SECONDS)
        if self._free is None or self._stale():
            free = self.free_cores()
            self._free = free if free is not None else self._free
        return self._free if self._free is not None else (self.ceiling or os.cpu_count() or 1)

    def record(self) -> dict[str, str]:
        """What a result records: the setting and the counts used so far in this process."""
        return {"threads_setting": self.setting, "threads_used": ",".join(map(str, sorted(self.used))) or "none"}


#: The run's policy, per thread (a context variable): two runs in two threads of one program each record their
#: own setting, and neither leaves its policy behind for the other.
_installed: ContextVar[ThreadPolicy | None] = ContextVar("compeval_threads", default=None)


def adapt() -> int | None:
    """Before a batch or an epoch on the CPU: the installed policy's count (None: no policy installed, torch's
    own setting stands, as in code outside a run)."""
    policy = _installed.get()
    return policy.adapt() if policy is not None else None


def workers(jobs: int) -> int:
    """How many of ``jobs`` staged jobs may run at once: one per free core under ``auto``, never more than the
    count the process started with (OMP_NUM_THREADS, which Ray sets to a job's CPUs, or an API user's
    ``torch.set_num_threads``); one under ``N`` (its N threads serve one job at a time) or outside a run."""
    policy = _installed.get()
    if policy is None or policy.setting != _AUTO or jobs < 2:
        return 1
    return max(1, min(jobs, policy.free_now(), policy.starting()))


@contextmanager
def sharing(jobs: int) -> Iterator[None]:
    """While ``jobs`` jobs run at once, every thread of the process computes on one thread (this one, the pool's
    through ``one_thread``, and ``adapt``'s count): torch's BLAS thread count is process-wide, so a count one job
    set would split another job's matrix products differently, and a lone head's bits with them (measured:
    two Ettinger jobs, one restoring two threads as it finished, moved the other's accuracy by 0.014)."""
    import torch

    policy = _installed.get()
    before_share = policy.share if policy is not None else 1
    before = torch.get_num_threads()
    if policy is not None:
        policy.share = max(1, jobs)
    torch.set_num_threads(1)
    try:
        yield
    finally:
        if policy is not None:
            policy.share = before_share
        torch.set_num_threads(before)


def one_thread() -> None:
    """A job pool's thread initializer: compute on one thread (``sharing``)."""
    import torch

    torch.set_num_threads(1)


_rest = threading.local()  # the task whose staged rest this thread runs


@contextmanager
def without_model(task: str) -> Iterator[None]:
    """A staged rest (``Task.staged``) runs beside other jobs' model parts: a model call from it would race
    them and add to their cache counts, so ``check_model_call`` refuses it."""
    _rest.task = task
    try:
        yield
    finally:
        _rest.task = None


def check_model_call() -> None:
    task = getattr(_rest, "task", None)
    if task is not None:
        raise CompevalError(f"task {task}: its staged() rest called the model; call the model before staged() "
                            "returns, and leave the rest the vectors or scores")


def record() -> dict[str, str]:
    policy = _installed.get()
    return policy.record() if policy is not None else {}


@contextmanager
def installed(setting: str) -> Iterator[ThreadPolicy]:
    """Run the enclosed jobs under ``setting``; afterwards torch's count is the one the policy found (or set
    at the start, for ``N``) and an outer policy is back."""
    policy = ThreadPolicy(setting)
    before = None
    if policy.setting != _AUTO:
        import torch

        before = torch.get_num_threads()
        torch.set_num_threads(policy.ceiling)
    token = _installed.set(policy)
    try:
        yield policy
    finally:
        _installed.reset(token)
        restore = before if before is not None else policy.ceiling
        torch = sys.modules.get("torch")
        if restore is not None and torch is not None and torch.get_num_threads() != restore:
            torch.set_num_threads(restore)
