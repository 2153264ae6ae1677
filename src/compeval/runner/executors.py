"""Executors run a plan's jobs: ``LocalExecutor`` in this process, one model at a time (the default), and
``RayExecutor`` (``runner.ray_executor``) on a Ray cluster. Each encodes a model's texts once across its
tasks, and each result is written atomically by whoever computed it.
"""
from __future__ import annotations

from typing import Any

from ..errors import CompevalError
from ..results.store import ResultStore
from .jobs import ExecutionReport, Executor, Plan, Reporter, RunContext
from .loop import TaskLoader, run_model_jobs

__all__ = ["EXECUTORS", "ExecutionReport", "Executor", "LocalExecutor", "make_executor"]


class LocalExecutor:
    """In process and sequential: ``run_model_jobs`` for each model in turn; each task is loaded once, for
    every model."""

    name = "local"

    def check(self, plan: Plan) -> None:
        pass

    def execute(self, plan: Plan, ctx: RunContext, reporter: Reporter) -> ExecutionReport:
        report = ExecutionReport()
        store = ResultStore(ctx.output_dir)
        context = ctx.with_builder(plan.builder)
        loader = TaskLoader(context)
        for jobs in plan.by_model():
            model = plan.models[jobs[0].model_id]
            report.merge(run_model_jobs(model, [job.task for job in jobs], context, store, reporter, loader=loader))
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
