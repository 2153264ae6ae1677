"""What the runner plans and executors run: jobs (model spec × task spec), the run's settings, outcomes,
and the one function that evaluates a job and writes its result (the same on every executor).
"""
from __future__ import annotations

import hashlib
import inspect
import os
import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..data.registry import DataContext
from ..errors import CompevalError
from ..models.protocol import ModelConfig
from ..results.schema import TaskInfo, TaskResult
from ..results.store import ResultStore
from .environment import environment


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

    @property
    def failed(self) -> list[JobOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def items(self) -> int:
        return sum(o.n_items for o in self.outcomes if o.status == "done")


class Reporter:
    """Progress callbacks; the CLI passes a rich-backed one, the API a silent one."""

    def model_start(self, name: str, n_jobs: int) -> None: ...
    def encoding(self, name: str, done: int, total: int) -> None: ...
    def job_done(self, outcome: JobOutcome) -> None: ...


@dataclass(frozen=True)
class RunContext:
    """Settings every job of a run shares; plain values only, so it travels to Ray workers as it is."""

    output_dir: Path
    data_dir: Path | None = None
    cache_dir: Path | None = None  # None: vectors in memory only
    seed: int = 0
    download: bool = True
    overwrite: bool = False
    env: tuple[tuple[str, str], ...] = ()  # COMPEVAL_* variables workers need (never secrets)

    def apply_env(self) -> None:
        """In a worker: take the driver's COMPEVAL_* settings (data folder, BNC folder…)."""
        for k, v in self.env:
            os.environ[k] = v


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
    model_slug: str
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

    def by_model(self) -> list[list[Job]]:
        groups: dict[int, list[Job]] = {}
        for job in self.jobs:
            groups.setdefault(job.model_index, []).append(job)
        return list(groups.values())


def model_record(config: ModelConfig) -> dict[str, Any]:
    return {**config.model_dump(mode="json"), "display": config.display}


def _spec_value(v: Any) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def task_spec(task: Any) -> str | None:
    """The spec string ``get_tasks`` rebuilds this exact task from (same class, params and slug), or None."""
    from ..tasks.registry import TASKS, get_tasks

    cls, name = type(task), task.metadata.name
    if TASKS.get(name) is not cls:
        return None
    sig = inspect.signature(cls.__init__)
    defaults = {k: p.default for k, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}
    extra = {k: v for k, v in task.params.items() if defaults.get(k, object()) != v}
    spec = name + "".join(f",{k}={_spec_value(v)}" for k, v in sorted(extra.items()))
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


def evaluate_job(model: Any, task: Any, data: DataContext, store: ResultStore, seed: int,
                 reraise: tuple[type[BaseException], ...] = ()) -> JobOutcome:
    """Evaluate one loaded task on one model and write its result atomically (every executor runs this).

    Errors fail this job only; exceptions of the ``reraise`` types propagate (an executor that retries
    transient failures passes them)."""
    display, slug = model.config.display, model.config.slug
    started_at = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    before = dict(model.stats.as_dict()) if hasattr(model, "stats") else {}
    try:
        output = task.evaluate(model, seed=seed)
    except reraise:
        raise
    except CompevalError as exc:
        return JobOutcome(display, task.slug, "failed", seconds=time.perf_counter() - t0, error=str(exc))
    except Exception as exc:  # a bug or a model crash: keep going with the other jobs
        return JobOutcome(display, task.slug, "failed", seconds=time.perf_counter() - t0,
                          error=f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}")
    seconds = time.perf_counter() - t0
    after = model.stats.as_dict() if hasattr(model, "stats") else {}
    meta = task.metadata
    main = next((s.value for s in output.scores if s.metric == meta.main_metric and s.subset == meta.main_subset),
                None)
    result = TaskResult(
        model=model_record(model.config),
        task=TaskInfo(name=meta.name, version=meta.version, suite=meta.suite, params=task.params,
                      main_metric=meta.main_metric, main_subset=meta.main_subset),
        data=data.provenance(meta.data_sources),
        environment=environment(),
        seed=seed,
        started_at=started_at,
        duration_seconds=seconds,
        n_items=output.n_items,
        main_score=main,
        scores=output.scores,
        counts=output.counts,
        cache={k: after[k] - before.get(k, 0) for k in after},
    )
    path = store.save(result, slug, task.slug, output.predictions)
    return JobOutcome(display, task.slug, "done", path, seconds, output.n_items, main)
