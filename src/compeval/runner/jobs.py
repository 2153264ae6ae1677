"""What the runner plans and executors run: jobs (a model configuration × a task), their outcomes, and what
an executor reports. ``RunContext`` lives in ``compeval.context``, where tasks and model factories read it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Protocol, runtime_checkable

from ..cache import CacheStats, EmbeddingCache
from ..context import RunContext
from ..models.protocol import ModelConfig
from ..models.registry import ModelBuilder, ResolvedModel
from ..results.store import model_folder
from ..tasks.base import Task


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

    def __post_init__(self):
        from ..redact import redact

        # a spec as typed may carry URL credentials: model, task and error are shown on every route
        self.model, self.task = redact(self.model), redact(self.task)
        self.error = redact(self.error) if self.error is not None else None


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
    evaluate_seconds: float = 0.0  # the jobs' wall seconds, overlapping jobs once (Task.staged), summed over workers
    executor: str = "local"
    warnings: list[str] = field(default_factory=list)  # e.g. stored results that had to be recomputed
    report: Path | None = None  # OUTPUT/report.html when ``run(report=True)`` wrote it

    @property
    def failed(self) -> list[JobOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def items(self) -> int:
        return sum(o.n_items for o in self.outcomes if o.status == "done")


class Reporter:
    """Progress callbacks; silent here, drawn by ``runner.progress.RichReporter``."""

    def model_start(self, name: str, n_jobs: int) -> None: ...
    def loading(self, name: str) -> None: ...  # weights start loading
    def encoding(self, name: str, done: int, total: int) -> None: ...
    def working_on(self, name: str, tasks: list[str], stage: str) -> None: ...  # "encoding" their union, "evaluating" one
    def job_done(self, outcome: JobOutcome) -> None: ...
    def warning(self, message: str) -> None: ...


@dataclass
class ExecutionReport:
    """What one model's jobs or a whole executor did: outcomes, cache counters, seconds loading weights and
    tasks. Plain values, so workers return it as it is. Counters are summed per configuration id, except
    distinct texts: their digests (``text_digest``) are united, so a text two workers saw counts once."""

    outcomes: list[JobOutcome] = field(default_factory=list)
    load_seconds: float = 0.0  # model weights
    task_load_seconds: float = 0.0  # task data read and stimuli generated (Task.load)
    evaluate_seconds: float = 0.0  # the jobs' wall seconds: jobs that overlap (Task.staged) count once
    counters: dict[str, dict[str, float]] = field(default_factory=dict)  # configuration id -> CacheStats sums
    texts: dict[str, set[bytes]] = field(default_factory=dict)  # configuration id -> digests of its texts

    def count(self, config_id: str, counters: dict[str, float], texts: Iterable[bytes]) -> None:
        """Add cache counters (increments) and the digests of the distinct texts asked of a configuration."""
        acc = self.counters.setdefault(config_id, {})
        for k, v in counters.items():
            acc[k] = acc.get(k, 0) + v
        self.texts.setdefault(config_id, set()).update(texts)

    def merge(self, other: "ExecutionReport") -> "ExecutionReport":
        """Add ``other`` (its outcomes, seconds and counters) into this report; returns this report."""
        self.outcomes.extend(other.outcomes)
        self.load_seconds += other.load_seconds
        self.task_load_seconds += other.task_load_seconds
        self.evaluate_seconds += other.evaluate_seconds
        for cid, numbers in other.counters.items():
            self.count(cid, numbers, other.texts.get(cid, ()))
        return self

    @property
    def stats(self) -> CacheStats:
        """The counters over every configuration: sums, and the distinct texts of each configuration."""
        out = CacheStats()
        for cid, numbers in self.counters.items():
            for k, v in numbers.items():
                if k != "unique":
                    setattr(out, k, getattr(out, k) + v)
            out.unique += len(self.texts.get(cid, ()))
        return out


@runtime_checkable
class Executor(Protocol):
    name: str

    def check(self, plan: "Plan") -> None:
        """Raise CompevalError before any work if this executor cannot run the plan."""

    def execute(self, plan: "Plan", ctx: RunContext, reporter: Reporter) -> ExecutionReport: ...


@dataclass(frozen=True, eq=False)  # one job is one object: its model configuration and task are not hashable
class Job:
    """One model × task job. Workers build the model from ``resolved`` (resolved once by the plan) and
    receive the task pickled, never rebuilt. ``resolved`` / ``task_spec`` are None for objects given
    through the Python API (an arbitrary encoder, an unregistered task): those run on the local executor only."""

    model: ModelConfig
    task: Task
    resolved: ResolvedModel | None
    task_spec: str | None

    model_id = property(lambda self: self.model.id)
    model_display = property(lambda self: self.model.display)
    task_slug = property(lambda self: self.task.slug)

    @cached_property
    def model_slug(self) -> str:
        """The model's results folder (``model_folder``: from its configuration id)."""
        return model_folder(self.model)


@dataclass
class Plan:
    """The jobs still to do, in model order, plus what planning found done. ``models``, ``tasks``, ``cache`` and
    ``builder`` are the driver's objects; remote executors send each job's own."""

    jobs: list[Job]
    skipped: list[JobOutcome]
    models: dict[str, Any]
    tasks: list[Task]
    cache: EmbeddingCache
    builder: ModelBuilder  # tasks' baseline models share it and its cache
    load_seconds: float = 0.0
    failed: list[JobOutcome] = field(default_factory=list)  # models whose spec could not be built
    warnings: list[str] = field(default_factory=list)

    def by_model(self) -> list[list[Job]]:
        groups: dict[str, list[Job]] = {}
        for job in self.jobs:
            groups.setdefault(job.model_id, []).append(job)
        return list(groups.values())


def model_record(config: ModelConfig) -> dict[str, Any]:
    """The model as a result records it; string values redacted (``compeval.redact``), so a secret in a
    spec never reaches a result file (the id is a hash and is kept as it is)."""
    from ..redact import redact

    def scrub(value: Any) -> Any:
        if isinstance(value, str):
            return redact(value)
        if isinstance(value, dict):
            return {k: scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v) for v in value]
        return value

    return scrub({**config.model_dump(mode="json"), "display": config.display})


def task_spec(task: Any) -> str | None:
    """The spec the task was built from (``get_tasks`` keeps it), else its registered name and options; None
    for a task of an unregistered class. The round trip is checked by ``tasks.conformance``, not per run."""
    from ..tasks.registry import TASKS

    if task.spec is None and TASKS.get(task.metadata.name) is type(task):
        return task.metadata.name + task.options.spec_suffix()
    return task.spec


def text_digest(text: str) -> bytes:
    """8 bytes standing for a text when workers report which texts they saw (unique counts)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
