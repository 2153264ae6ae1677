"""Run a plan's jobs as Ray tasks in two stages per model (docs/architecture.md, Executors): one encode
task per model, then one task per job that evaluates from the shared vectors and writes its own result.
Ray is imported only here, when the executor runs.
"""
from __future__ import annotations

import importlib.util
import logging
import math
import sqlite3
import time
from dataclasses import replace
from typing import Any

from ..errors import CompevalError
from ..models.protocol import ModelConfig, declared_resources, shares_vectors
from ..models.registry import ResolvedModel
from ..tasks.base import Task
from .jobs import ExecutionReport, Job, JobOutcome, Plan, Reporter, RunContext
from .loop import encode_model_texts, rebuild_model, run_model_jobs

RAY_EXTRA = "ray"
#: Exceptions Ray retries a task for (besides worker crashes): the next attempt may well succeed.
TRANSIENT: tuple[type[BaseException], ...] = (ConnectionError, TimeoutError, sqlite3.OperationalError)


def ray_missing_message() -> str:
    return (f"--executor ray needs Ray, which is not installed; install it with "
            f"pip install 'compeval[{RAY_EXTRA}]' (or run with the default local executor)")


def import_ray():
    try:
        import ray
    except ImportError:
        raise CompevalError(ray_missing_message()) from None
    return ray


# ---------------------------------------------------------------------------------------------------------
# Resources


def model_resources(model: Any, num_cpus: float = 1.0) -> dict[str, Any]:
    """Ray options for a job of ``model``: ``num_cpus`` plus what it and its parts declare
    (``declared_resources``)."""
    out: dict[str, Any] = {"num_cpus": num_cpus, "num_gpus": 0, "resources": {}}
    for k, v in declared_resources(model).items():
        if k in ("num_cpus", "num_gpus"):
            out[k] = max(out[k], v)
        else:
            out["resources"][k] = v
    return out


def _cpu_only(res: dict[str, Any]) -> dict[str, Any]:
    return {"num_cpus": res["num_cpus"], "num_gpus": 0, "resources": {}}


THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def _with_threads(res: dict[str, Any]) -> dict[str, Any]:
    """Ray options plus a thread count equal to the job's CPUs (workers inherit the driver's thread
    variables, which oversubscribe a node's cores); task env_vars merge with the job's own."""
    n = str(max(1, math.ceil(res["num_cpus"])))
    return {**res, "runtime_env": {"env_vars": {v: n for v in THREAD_VARS}}}


# ---------------------------------------------------------------------------------------------------------
# Worker side (plain functions: the executor wraps them with ray.remote)


def _worker_context(ctx: RunContext) -> RunContext:
    ctx.apply_env()
    return ctx.resolve()  # a remote cluster's context arrives unresolved: this worker's own devices, once


def encode_stage(resolved: ResolvedModel, config: ModelConfig, tasks: list[Task], ctx: RunContext):
    """Stage 1: ((report, slugs of the tasks whose texts are in the payload), payload), by
    ``encode_model_texts`` (weights load only if the disk cache lacks some text)."""
    ctx = _worker_context(ctx)
    t0 = time.perf_counter()
    cache, model, builder = rebuild_model(ctx, resolved, config)
    build_seconds = time.perf_counter() - t0
    try:
        report, declared, payload = encode_model_texts(model, tasks, ctx.with_builder(builder), reraise=TRANSIENT)
        report.load_seconds += build_seconds
        return (report, declared), payload
    finally:
        cache.close()


def jobs_stage(resolved: ResolvedModel, config: ModelConfig, tasks: list[Task], ctx: RunContext,
               shared: dict[str, Any] | None) -> ExecutionReport:
    """Stage 2: ``run_model_jobs`` for one model's jobs in this worker, each result written here: one job
    whose texts are in ``shared``, or several in turn (no texts declared, or vectors that cannot be shared)."""
    from ..data.registry import DataContext
    from ..results.store import ResultStore, model_folder
    from .reuse import stored_result

    ctx = _worker_context(ctx)
    store = ResultStore(ctx.output_dir)
    folder = model_folder(config)
    data = DataContext(ctx.data_dir, download=False, allow_modified=ctx.allow_modified_data)
    strict = replace(ctx, reuse_stale=False)  # the plan kept what --reuse-stale keeps; these are to compute
    report = ExecutionReport()
    todo = []
    for task in tasks:
        # A result that stands by the planner's rule is an earlier attempt's (a retry) or another run's; a
        # stale one (why it was planned) is computed again, never kept.
        found = None if ctx.overwrite else stored_result(store, folder, config, task, [], ctx=strict, data=data)
        if found is not None:
            report.outcomes.append(JobOutcome(config.display, task.slug, "skipped", found))
        else:
            todo.append(task)
    if not todo:
        return report
    t0 = time.perf_counter()
    cache, model, builder = rebuild_model(ctx, resolved, config)
    report.load_seconds += time.perf_counter() - t0
    try:
        # The union once, in batches, as the local executor does, when several tasks share this worker.
        return report.merge(run_model_jobs(model, todo, ctx.with_builder(builder), store, Reporter(), shared=shared,
                                           encode_one=False, reraise=TRANSIENT))
    finally:
        cache.close()


# ---------------------------------------------------------------------------------------------------------
# Driver side


def _describe(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {cause}"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1] if text else ''}"


class RayExecutor:
    """Model × task jobs as Ray tasks. ``address`` None starts a local cluster unless ``ray.init`` was
    called; ``"auto"`` or ``HOST:PORT`` joins one whose workers share the output, data and cache folders."""

    name = "ray"

    def __init__(self, address: str | None = None, *, cpus_per_job: float = 1.0, max_retries: int = 2,
                 num_cpus: int | None = None, api_slots: int = 1, init_options: dict[str, Any] | None = None):
        if importlib.util.find_spec("ray") is None:
            raise CompevalError(ray_missing_message())
        if cpus_per_job <= 0:
            raise CompevalError(f"cpus per job must be positive, not {cpus_per_job}")
        self.address = address
        self.cpus_per_job = cpus_per_job
        self.max_retries = max_retries
        self.num_cpus = num_cpus
        self.api_slots = api_slots
        self.init_options = dict(init_options or {})

    def check(self, plan: Plan) -> None:
        objects = sorted({j.model_display for j in plan.jobs if j.resolved is None})
        if objects:
            raise CompevalError(
                f"model(s) {', '.join(objects)} were given as Python objects; Ray workers rebuild models from "
                "spec strings, so run them with the local executor (executor='local')")
        tasks = sorted({j.task_slug for j in plan.jobs if j.task_spec is None})
        if tasks:
            raise CompevalError(
                f"task(s) {', '.join(tasks)} are of an unregistered Task class, which Ray workers may not have "
                "(only tasks built from spec strings are sent); run them with the local executor")

    def _connect(self, ray) -> bool:
        """Connect (or start a local cluster); True when this call started it and must shut it down."""
        if ray.is_initialized():
            return False
        opts = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING,
                **self.init_options}
        if self.address:
            try:
                ray.init(address=self.address, **opts)
            except ConnectionError as exc:
                raise CompevalError(
                    f"could not join the Ray cluster at {self.address!r} ({exc}); is it running (`ray status`)? "
                    "If it uses token authentication, this process needs its token ($RAY_AUTH_TOKEN or "
                    "~/.ray/auth_token)") from None
        else:
            ray.init(address="local", num_cpus=self.num_cpus, resources={"api": self.api_slots}, **opts)
        return True

    def execute(self, plan: Plan, ctx: RunContext, reporter: Reporter) -> ExecutionReport:
        if self.address is None:
            ctx = ctx.resolve()  # a local cluster has this machine's devices (remote: each worker's)
        ray = import_ray()
        started = self._connect(ray)
        try:
            return self._execute(ray, plan, ctx, reporter)
        finally:
            if started:
                ray.shutdown()

    def _check_cluster(self, ray, plan: Plan, resources: dict[str, dict[str, Any]]) -> None:
        have = ray.cluster_resources()
        for m, res in resources.items():
            wants = {"CPU": res["num_cpus"], "GPU": res["num_gpus"], **res["resources"]}
            for key, amount in wants.items():
                if amount and have.get(key, 0) < amount:
                    display = plan.models[m].config.display
                    hint = (" (start its nodes with --resources='{\"api\": N}', N = concurrent API jobs, or run "
                            "without --ray-address to start a local cluster that has it)" if key == "api" else "")
                    raise CompevalError(f"model {display} needs {amount} {key} per job but the Ray cluster has "
                                        f"{have.get(key, 0):g}{hint}")

    isolate = False  # --isolate: one worker process per model (runner/isolation.py)
    model_timeout: float | None = None  # --model-timeout, seconds per model's worker
    run_here: Any = None  # the runner's run_model_here, called in each isolated worker

    def _execute(self, ray, plan: Plan, ctx: RunContext, reporter: Reporter) -> ExecutionReport:
        if self.isolate:
            return execute_on_ray(self, ray, plan, ctx, reporter)
        report = ExecutionReport()
        groups = plan.by_model()
        resources = {jobs[0].model_id: model_resources(plan.models[jobs[0].model_id], self.cpus_per_job)
                     for jobs in groups}
        self._check_cluster(ray, plan, resources)
        retry = {"max_retries": self.max_retries, "retry_exceptions": list(TRANSIENT)}
        encode_fn = ray.remote(encode_stage)
        jobs_fn = ray.remote(jobs_stage)
        pending: dict[Any, tuple[str, list[Job]]] = {}
        payloads: dict[str, Any] = {}  # model configuration id -> its vectors in the object store
        left: dict[str, int] = {}  # model configuration id -> jobs not finished yet

        def finish(job: Job, outcome: JobOutcome) -> None:
            report.outcomes.append(outcome)
            reporter.job_done(outcome)
            left[job.model_id] -= 1
            if not left[job.model_id]:
                payloads.pop(job.model_id, None)  # let the object store free the vectors

        def absorb(jobs: list[Job], done: ExecutionReport) -> None:
            """A worker's report: its outcomes finish their jobs, its counters and seconds add up."""
            by_slug = {job.task_slug: job for job in jobs}
            for outcome in done.outcomes:
                finish(by_slug[outcome.task], outcome)
            done.outcomes = []
            report.merge(done)

        def submit(jobs: list[Job], shared: Any, res: dict[str, Any]) -> None:
            name = f"{jobs[0].model_display} × {jobs[0].task_slug if len(jobs) == 1 else f'{len(jobs)} tasks'}"
            ref = jobs_fn.options(name=name, **_with_threads(res), **retry).remote(
                jobs[0].resolved, jobs[0].model, [j.task for j in jobs], ctx, shared)
            pending[ref] = ("jobs", jobs)

        for jobs in groups:
            m = jobs[0].model_id
            left[m] = len(jobs)
            reporter.model_start(jobs[0].model_display, len(jobs))
            if not shares_vectors(plan.models[m]):
                submit(jobs, None, resources[m])  # nothing to share between processes: one worker, in turn
                continue
            info_ref, payload_ref = encode_fn.options(
                num_returns=2, name=f"encode {jobs[0].model_display}", **_with_threads(resources[m]), **retry
            ).remote(jobs[0].resolved, jobs[0].model, [j.task for j in jobs], ctx)
            payloads[m] = payload_ref
            pending[info_ref] = ("encode", jobs)

        while pending:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            kind, jobs = pending.pop(ref)
            try:
                value, error = ray.get(ref), None
            except Exception as exc:  # the task raised (after its retries) or its worker kept dying
                value, error = None, _describe(exc)
            if error is not None:
                why = f"encoding stage failed: {error}" if kind == "encode" else error
                for job in jobs:
                    finish(job, JobOutcome(job.model_display, job.task_slug, "failed", error=why))
            elif kind == "encode":
                m = jobs[0].model_id
                encoded, declared = value
                failed = {o.task for o in encoded.outcomes}  # tasks that could not be loaded
                absorb(jobs, encoded)
                serial = []
                for job in jobs:
                    if job.task_slug in failed:
                        continue
                    if job.task_slug in declared:
                        submit([job], payloads[m], _cpu_only(resources[m]))
                    else:
                        serial.append(job)
                if serial:
                    submit(serial, payloads[m], resources[m])
            else:
                absorb(jobs, value)
        return report


def execute_on_ray(executor: Any, ray: Any, plan: Plan, ctx: RunContext, reporter: Reporter) -> ExecutionReport:
    """``--executor ray --isolate``: each model's jobs as one Ray task in a process of its own (``max_calls=1``
    returns its GPU memory; no retries: a crashed model would crash again); a dead worker fails its model alone."""
    from ..results.store import ResultStore
    from .isolation import _log_tail, model_worker, unfinished, worker_log

    report = ExecutionReport()
    store = ResultStore(ctx.output_dir)
    remote = ray.remote(max_calls=1, max_retries=0)(model_worker)
    refs: dict[Any, list[Job]] = {}
    for jobs in plan.by_model():
        res = _with_threads(model_resources(plan.models[jobs[0].model_id], executor.cpus_per_job))
        ref = remote.options(name=f"model {jobs[0].model_display}", **res).remote(
            executor.run_here, jobs[0].resolved, [j.task for j in jobs], ctx, str(worker_log(ctx, jobs)), None,
            executor.model_timeout)
        refs[ref] = jobs
        reporter.model_start(jobs[0].model_display, len(jobs))
    waiting = list(refs)
    while waiting:
        ready, waiting = ray.wait(waiting, num_returns=1)
        jobs = refs[ready[0]]
        try:
            done = ray.get(ready[0])
        except Exception as exc:  # the worker died (crash, OOM kill, its own timeout): this model only
            log = worker_log(ctx, jobs)
            why = "timed out (--model-timeout)" if "timed out" in _log_tail(log) else \
                f"the model's Ray worker died ({type(exc).__name__})"
            unfinished(jobs, why, log, store, report, reporter)
            continue
        for outcome in done.outcomes:
            reporter.job_done(outcome)
        report.merge(done)
    return report
