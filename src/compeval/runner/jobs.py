"""What the runner plans and executors run: jobs (model spec × task spec), the run's settings
(``RunContext``, defined in ``compeval.context`` so that tasks and model factories can read it), outcomes,
and what an executor reports. The lifecycle that runs the jobs is ``runner/session.py``.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..cache import CacheStats
from ..context import RunContext
from ..models.protocol import ModelConfig


@dataclass
class JobOutcome:
    model: str
    task: str
    status: str  # "done" | "skipped" | "failed"
    path: Path | None = None
    seconds: float = 0.0
    n_items: int = 0
    main_score: float | None = None
    error: str | None = None


@dataclass
class RunSummary:
    outcomes: list[JobOutcome] = field(default_factory=list)
    seconds: float = 0.0
    requested: int = 0
    unique: int = 0
    encoded: int = 0
    from_cache: int = 0
    encode_seconds: float = 0.0  # in the model (encode / score_pairs), summed over workers
    load_seconds: float = 0.0  # model weights
    task_load_seconds: float = 0.0  # Task.load: data read, stimuli generated, baselines fitted
    executor: str = "local"
    warnings: list[str] = field(default_factory=list)  # e.g. stored results that had to be recomputed

    @property
    def failed(self) -> list[JobOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def items(self) -> int:
        return sum(o.n_items for o in self.outcomes if o.status == "done")


class Reporter:
    """Progress callbacks; silent here. ``runner.progress.RichReporter`` draws them (CLI, and the API
    with ``progress=True``)."""

    def model_start(self, name: str, n_jobs: int) -> None: ...
    def loading(self, name: str) -> None: ...  # weights start loading
    def encoding(self, name: str, done: int, total: int) -> None: ...
    def job_done(self, outcome: JobOutcome) -> None: ...
    def warning(self, message: str) -> None: ...


@dataclass
class ExecutionReport:
    """What an executor did: one outcome per planned job, plus the run's cache counters."""

    outcomes: list[JobOutcome] = field(default_factory=list)
    stats: CacheStats = field(default_factory=CacheStats)
    load_seconds: float = 0.0  # model weights
    task_load_seconds: float = 0.0  # task data read and stimuli generated (Task.load)


@runtime_checkable
class Executor(Protocol):
    name: str

    def check(self, plan: "Plan") -> None:
        """Raise CompevalError before any work if this executor cannot run the plan."""

    def execute(self, plan: "Plan", ctx: RunContext, reporter: Reporter) -> ExecutionReport: ...


_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")


def forwarded_env() -> tuple[tuple[str, str], ...]:
    """COMPEVAL_* variables of this process except credentials (set those where the workers run)."""
    return tuple(sorted((k, v) for k, v in os.environ.items()
                        if k.startswith("COMPEVAL_") and not any(w in k for w in _SECRET_WORDS)))


@dataclass(frozen=True)
class Job:
    """One model × task job. ``model_spec`` / ``task_spec`` are None for objects given through the Python
    API (an arbitrary encoder, an unregistered task): those run only on the local executor."""

    model_spec: str | None
    task_spec: str | None
    model_id: str
    model_slug: str  # its results folder: ``model_folder(config)``, from the configuration id
    model_display: str
    task_slug: str
    model_index: int  # into Plan.models (the driver's built models)
    task_index: int  # into Plan.tasks (the driver's task objects)


@dataclass
class Plan:
    """The jobs still to do, in model order, plus what planning found already done.

    ``models`` / ``tasks`` / ``cache`` are the driver's objects (the local executor runs them in process);
    remote executors use only the spec strings in ``jobs``.
    """

    jobs: list[Job]
    skipped: list[JobOutcome]
    models: list[Any]
    tasks: list[Any]
    cache: Any
    load_seconds: float = 0.0
    failed: list[JobOutcome] = field(default_factory=list)  # models whose spec could not be built
    builder: Any = None  # the driver's ModelBuilder (tasks' baseline models share it and its cache)
    warnings: list[str] = field(default_factory=list)

    def by_model(self) -> list[list[Job]]:
        groups: dict[int, list[Job]] = {}
        for job in self.jobs:
            groups.setdefault(job.model_index, []).append(job)
        return list(groups.values())


def model_record(config: ModelConfig) -> dict[str, Any]:
    return {**config.model_dump(mode="json"), "display": config.display}


def task_spec(task: Any) -> str | None:
    """The spec string ``get_tasks`` rebuilds this exact task from (same class, params and slug), or None."""
    from ..tasks.registry import TASKS, get_tasks

    cls, name = type(task), task.metadata.name
    if TASKS.get(name) is not cls:
        return None
    spec = name + task.options.spec_suffix()
    try:
        rebuilt = get_tasks(spec)
    except Exception:  # options that do not survive the spec grammar: the task stays local-only
        return None
    if len(rebuilt) != 1 or type(rebuilt[0]) is not cls or rebuilt[0].params != task.params \
            or rebuilt[0].slug != task.slug:
        return None
    return spec


def text_digest(text: str) -> bytes:
    """8 bytes standing for a text when workers report which texts they saw (unique counts)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
