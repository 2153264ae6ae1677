"""Executors run a plan's jobs: ``LocalExecutor`` in this process, one model at a time (the default), and
``RayExecutor`` (``compeval.runner.ray_executor``) as Ray tasks on a local or remote cluster.

Both keep the runner's guarantees: a model's texts are encoded once across all its tasks, each result is
written atomically by whoever computed it (its presence means the job is complete), and summary counts
(requested / unique / encoded texts) cover the whole run.
"""
from __future__ import annotations

import time
from typing import Any

from ..data.registry import DataContext
from ..errors import CompevalError
from ..results.store import ResultStore
from .jobs import ExecutionReport, Executor, JobOutcome, Plan, Reporter, RunContext
from .session import ModelSession, load_task

__all__ = ["EXECUTORS", "ExecutionReport", "Executor", "LocalExecutor", "make_executor"]


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
        task_ctx = ctx.with_builder(plan.builder)
        loaded: dict[int, str | None] = {}  # task index -> None when loaded, else the load error
        task_data: dict[int, DataContext] = {}  # task index -> the files that task read

        def done(outcome: JobOutcome) -> None:
            report.outcomes.append(outcome)
            reporter.job_done(outcome)

        for jobs in plan.by_model():
            model = plan.models[jobs[0].model_index]
            display = model.config.display
            reporter.model_start(display, len(jobs))
            session = ModelSession(model, ctx, store, reporter=reporter)
            ready = []
            for job in jobs:
                task = plan.tasks[job.task_index]
                if job.task_index not in loaded:  # once per run: every model shares the loaded task
                    t0 = time.perf_counter()
                    task_data[job.task_index] = data.for_task()
                    loaded[job.task_index] = load_task(task, task_data[job.task_index], task_ctx)
                    report.task_load_seconds += time.perf_counter() - t0
                if loaded[job.task_index] is None:
                    ready.append(job)
                else:
                    done(JobOutcome(display, task.slug, "failed", error=loaded[job.task_index]))
            session.prepare([plan.tasks[j.task_index] for j in ready])
            for job in ready:
                done(session.evaluate(plan.tasks[job.task_index], task_data[job.task_index]))
            session.close()
            report.load_seconds += session.load_seconds
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
