"""Executors run a plan's jobs: ``LocalExecutor`` in this process, one model at a time (the default), and
``RayExecutor`` (``compeval.runner.ray_executor``) as Ray tasks on a local or remote cluster.

Both keep the runner's guarantees: a model's texts are encoded once across all its tasks, each result is
written atomically by whoever computed it (its presence means the job is complete), and summary counts
(requested / unique / encoded texts) cover the whole run.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..cache import CacheStats
from ..data.registry import DataContext
from ..errors import CompevalError
from ..models.protocol import can_encode
from ..results.store import ResultStore
from .jobs import JobOutcome, Plan, Reporter, RunContext, evaluate_job


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

    def check(self, plan: Plan) -> None:
        """Raise CompevalError before any work if this executor cannot run the plan."""

    def execute(self, plan: Plan, ctx: RunContext, reporter: Reporter) -> ExecutionReport: ...


class LocalExecutor:
    """In process and sequential: per model, load its pending tasks, encode the union of their texts once
    (weights load only if something is not in the cache), then evaluate each task and write its result."""

    name = "local"

    def check(self, plan: Plan) -> None:
        pass

    def execute(self, plan: Plan, ctx: RunContext, reporter: Reporter) -> ExecutionReport:
        report = ExecutionReport()
        data = DataContext(ctx.data_dir, download=ctx.download, allow_modified=ctx.allow_modified_data)
        store = ResultStore(ctx.output_dir)
        loaded: dict[int, str | None] = {}  # task index -> None when loaded, else the load error
        task_data: dict[int, DataContext] = {}  # task index -> the files that task read

        def done(outcome: JobOutcome) -> None:
            report.outcomes.append(outcome)
            reporter.job_done(outcome)

        for jobs in plan.by_model():
            model = plan.models[jobs[0].model_index]
            display = model.config.display
            reporter.model_start(display, len(jobs))
            ready = []
            for job in jobs:
                task = plan.tasks[job.task_index]
                if job.task_index not in loaded:
                    t0 = time.perf_counter()
                    task_data[job.task_index] = data.for_task()
                    try:
                        task.load(task_data[job.task_index])
                        loaded[job.task_index] = None
                    except CompevalError as exc:  # e.g. a corpus the user does not have: fail that job only
                        loaded[job.task_index] = str(exc)
                    report.task_load_seconds += time.perf_counter() - t0
                if loaded[job.task_index] is None:
                    ready.append(task)
                else:
                    done(JobOutcome(display, task.slug, "failed", error=loaded[job.task_index]))
            union = list(dict.fromkeys(t for task in ready for t in task.texts())) if can_encode(model) else []
            todo = model.warm(union) if union and hasattr(model, "warm") else union
            if callable(getattr(model, "load", None)) and (todo or not union):
                t0 = time.perf_counter()
                model.load()  # weights only when something must be encoded (or the tasks did not say)
                report.load_seconds += time.perf_counter() - t0
            if union:
                model.on_progress = lambda d, total, _n=display: reporter.encoding(_n, d, total)
                try:
                    model.encode(union)
                except CompevalError:
                    pass  # a text one task cannot give (empty, …): each task encodes its own and fails alone
                finally:
                    model.on_progress = None
            for job in jobs:
                if loaded[job.task_index] is None:
                    task = plan.tasks[job.task_index]
                    done(evaluate_job(model, task, task_data[job.task_index], store, ctx.seed))
        report.stats = plan.cache.totals()
        return report


EXECUTORS = ("local", "ray")


def make_executor(executor: str | Any = "local", **options: Any) -> Any:
    """``"local"``, ``"ray"`` (options go to ``RayExecutor``) or an object following ``Executor``."""
    if not isinstance(executor, str):
        if not isinstance(executor, Executor):
            raise CompevalError(f"{type(executor).__name__} is not an executor (needs name, check, execute)")
        return executor
    if executor == "local":
        if options:
            raise CompevalError(f"option(s) {', '.join(sorted(options))} apply to the Ray executor only "
                                "(--executor ray)")
        return LocalExecutor()
    if executor == "ray":
        from .ray_executor import RayExecutor

        return RayExecutor(**options)
    raise CompevalError(f"unknown executor {executor!r}; choose {' or '.join(EXECUTORS)}")
