"""The one runner: plans the model × task grid (jobs minus those whose result file exists), then hands the
jobs to an executor — in process by default, or Ray — which encodes each model's texts once across all its
tasks, evaluates, and writes typed results atomically.

Everything here is usable from Python without the CLI: ``run(["glove-6b-50d"], ["sts3k"], "results")``;
``run(..., executor="ray")`` runs the same jobs as Ray tasks.
"""
from __future__ import annotations

import os
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Sequence

from ..cache import EmbeddingCache, default_cache_dir
from ..context import resolve_device
from ..errors import CompevalError
from ..models.protocol import as_model
from ..models.registry import ModelBuilder, expand_alias, resolve_family
from ..results.store import ResultStore, ResultWriteError, model_folder
from ..specs import parse_spec
from ..tasks.base import Task
from ..tasks.registry import get_tasks
from .executors import make_executor
from .jobs import Job, JobOutcome, Plan, Reporter, RunContext, RunSummary, forwarded_env, model_record, task_spec
from .progress import RichReporter, interactive
from .session import evaluate_job

__all__ = ["Job", "JobOutcome", "Plan", "Reporter", "RunContext", "RunSummary", "evaluate_job", "model_record",
           "plan", "run", "validate_model_spec"]

def validate_model_spec(spec: str) -> None:
    """Fail before any work when a model spec names nothing registered (a Hub repo is checked when built)."""
    parsed = parse_spec(spec)
    if "/" in parsed.name and parsed.arg is None:
        return
    resolve_family(expand_alias(parsed).name)


def _absolute(path: Path | str | None) -> Path | None:
    return Path(path).expanduser().absolute() if path is not None else None


def make_context(output_dir: Path | str, *, data_dir: Path | str | None = None,
                 cache_dir: Path | str | None = "default", seed: int = 0, download: bool = True,
                 overwrite: bool = False, device: str = "auto", batch_size: int | None = None,
                 bnc_dir: Path | str | None = None, progress: bool = True,
                 allow_modified_data: bool = False) -> RunContext:
    """Absolute paths (workers may start elsewhere) and the COMPEVAL_* settings workers need; the BNC folder
    from ``bnc_dir``, else ``$COMPEVAL_BNC_DIR`` (tasks read it from the context only)."""
    cache = default_cache_dir() if cache_dir == "default" else cache_dir
    bnc_dir = bnc_dir or os.environ.get("COMPEVAL_BNC_DIR") or None
    return RunContext(output_dir=_absolute(output_dir), data_dir=_absolute(data_dir), cache_dir=_absolute(cache),
                      seed=seed, download=download, overwrite=overwrite, device=device, batch_size=batch_size,
                      bnc_dir=_absolute(bnc_dir), progress=progress, allow_modified_data=allow_modified_data,
                      env=forwarded_env())


def check_writable(output_dir: Path) -> None:
    """Fail before any work when the results folder cannot be created or written (read-only, not a folder)."""
    import tempfile

    try:
        output_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=output_dir):
            pass
    except OSError as exc:
        raise ResultWriteError(f"cannot write results to {output_dir}: {exc.strerror or exc}") from None


def plan(models: Sequence[str | Any], tasks: Sequence[str | Task], ctx: RunContext) -> Plan:
    """Models × tasks → the jobs whose result file does not exist yet (all of them with ``overwrite``).

    Models are built here (cheap: weights load only when something must be encoded) because a model's
    configuration names its results folder. Repeated tasks or models are planned once.
    """
    task_list: list[Task] = []
    seen_tasks: set[str] = set()
    for t in tasks:
        for task in (get_tasks(t) if isinstance(t, str) else [t]):
            if task.slug not in seen_tasks:
                seen_tasks.add(task.slug)
                task_list.append(task)
    for m in models:
        if isinstance(m, str):
            validate_model_spec(m)
    specs = [task_spec(t) for t in task_list]
    cache = EmbeddingCache(ctx.cache_dir)
    builder = ModelBuilder.for_context(ctx, cache)
    store = ResultStore(ctx.output_dir)
    out = Plan(jobs=[], skipped=[], models=[], tasks=task_list, cache=cache, builder=builder)
    seen_models: set[str] = set()
    for m in models:
        t0 = time.perf_counter()
        try:
            model = builder(m) if isinstance(m, str) else cache.wrap(as_model(m))
        except CompevalError as exc:
            # A bad spec (unknown repo, dtype…) or a Python object that cannot be identified (its encode
            # fails on the probe texts) fails its own jobs; the other models run.
            label = m if isinstance(m, str) else type(m).__name__
            out.failed += [JobOutcome(label, task.slug, "failed",
                                      error=str(exc) if label in str(exc) else f"{label}: {exc}")
                           for task in task_list]
            continue
        out.load_seconds += time.perf_counter() - t0
        config = model.config
        if config.id in seen_models:
            continue
        seen_models.add(config.id)
        out.models.append(model)
        folder = model_folder(config)
        for i, task in enumerate(task_list):
            found = None if ctx.overwrite else _stored_result(store, folder, config, task, out.warnings)
            if found is not None:
                out.skipped.append(JobOutcome(config.display, task.slug, "skipped", found))
            else:
                out.jobs.append(Job(model_spec=m if isinstance(m, str) else None, task_spec=specs[i],
                                    model_id=config.id, model_slug=folder, model_display=config.display,
                                    task_slug=task.slug, model_index=len(out.models) - 1, task_index=i))
    return out


def _stored_result(store: ResultStore, folder: str, config: Any, task: Task, warnings: list[str]) -> Path | None:
    """The path of an intact result of exactly this model configuration and task, else None.

    A result stands only if it parses, holds the planned model id and task options, and its predictions
    file has the recorded hash; anything else is recomputed, with a warning. Results written by compeval
    < 2.0 (folder named by the model's slug) count when they hold the same model id."""
    path = store.path(folder, task.slug)
    problem = store.problem(path, model_id=config.id, task=task)
    if problem is None:
        return path
    if problem == "missing":
        legacy = store.legacy_path(config.slug, task.slug)
        if legacy != path and store.problem(legacy, model_id=config.id, task=task) is None:
            return legacy
        return None
    warnings.append(f"{path}: {problem}; recomputing it")
    return None


def run(
    models: Sequence[str | Any],
    tasks: Sequence[str | Task],
    output_dir: Path | str = "results",
    *,
    data_dir: Path | str | None = None,
    overwrite: bool = False,
    cache_dir: Path | str | None = "default",
    seed: int = 0,
    download: bool = True,
    reporter: Reporter | None = None,
    executor: str | Any = "local",
    device: str = "auto",
    batch_size: int | None = None,
    bnc_dir: Path | str | None = None,
    progress: bool | None = None,
    allow_modified_data: bool = False,
) -> RunSummary:
    """Run every model on every task; return what was done, skipped or failed.

    ``executor`` is ``"local"`` (in process, the default), ``"ray"`` (a fresh local Ray cluster unless
    ``ray.init`` was already called), or an executor object such as ``RayExecutor(address="auto")``.
    Models and tasks given as Python objects rather than spec strings run on the local executor only.
    ``progress`` draws a bar per model (texts/s, time left) and a line while weights load on stderr; by
    default only when stderr is a terminal (``reporter`` replaces it with your own callbacks).
    ``device`` (auto | cpu | cuda | cuda:N | mps), ``batch_size``, ``bnc_dir`` and ``progress`` are run
    settings (``RunContext``): they reach model factories and tasks but no model's or task's id.
    A job that raises fails alone (its traceback in ``OUTPUT/logs/``); the others go on.
    ``allow_modified_data`` uses local data files whose SHA-256 differs from the registry's pin (else an
    error for the tasks reading them); each result records it.
    """
    started = time.perf_counter()
    if progress is None:
        progress = reporter is not None or interactive()
    drawn = RichReporter() if reporter is None and progress else None  # the bars live for the run
    reporter = drawn or reporter or Reporter()
    with drawn if drawn is not None else nullcontext():
        executor = make_executor(executor)
        ctx = make_context(output_dir, data_dir=data_dir, cache_dir=cache_dir, seed=seed, download=download,
                           overwrite=overwrite, device=device, batch_size=batch_size, bnc_dir=bnc_dir,
                           progress=progress, allow_modified_data=allow_modified_data)
        if executor.name == "local" and ctx.device != "auto":
            resolve_device(ctx.device)  # a named device this machine lacks: one line before any work
        check_writable(ctx.output_dir)
        the_plan = plan(models, tasks, ctx)
        for message in the_plan.warnings:
            warn = getattr(reporter, "warning", None)
            if callable(warn):
                warn(message)
        try:
            executor.check(the_plan)
            for outcome in the_plan.skipped + the_plan.failed:
                reporter.job_done(outcome)
            report = executor.execute(the_plan, ctx, reporter) if the_plan.jobs else None
        finally:
            the_plan.cache.close()
    summary = RunSummary(outcomes=list(the_plan.skipped) + list(the_plan.failed), executor=executor.name,
                         load_seconds=the_plan.load_seconds, warnings=list(the_plan.warnings))
    if report is not None:
        totals = report.stats
        summary.outcomes += report.outcomes
        summary.requested, summary.unique, summary.encoded = totals.requested, totals.unique, totals.encoded
        summary.from_cache = totals.from_disk
        summary.encode_seconds = totals.encode_seconds + totals.score_seconds
        summary.load_seconds += report.load_seconds
        summary.task_load_seconds = report.task_load_seconds
    summary.seconds = time.perf_counter() - started
    return summary
