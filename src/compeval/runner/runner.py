"""Plans the model × task grid (the jobs whose result is not stored yet) and hands the jobs to an executor
(in process by default, or Ray). From Python: ``run(["glove-6b-50d"], ["sts3k"], "results")``.
"""
from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from ..cache import EmbeddingCache
from ..data.registry import DataContext
from ..errors import CompevalError
from ..models.conformance import check_before_use
from ..models.protocol import as_model
from ..models.registry import ModelBuilder, ResolvedModel
from ..specs import Spec
from ..results.store import ResultStore, ResultWriteError, model_folder
from ..tasks.base import Task
from ..tasks.registry import get_tasks, result_slug
from .executors import LocalExecutor, make_executor
from .jobs import (ExecutionReport, Job, JobOutcome, Plan, Reporter, RunContext, RunSummary, model_record,
                   task_spec)
from .progress import RichReporter, interactive
from .reuse import stored_identities, stored_result, superseded
from .session import evaluate_job, record_failure

__all__ = ["Job", "JobOutcome", "Plan", "Reporter", "RunContext", "RunSummary", "evaluate_job", "model_record",
           "plan", "run"]


def check_writable(output_dir: Path) -> None:
    """Fail before any work when the results folder cannot be created or written (read-only, not a folder)."""
    import tempfile

    if output_dir.exists() and not output_dir.is_dir():
        raise ResultWriteError(f"cannot write results to {output_dir}: it is a file, not a folder; move it or name "
                               "another results folder")
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=output_dir):
            pass
    except OSError as exc:
        raise ResultWriteError(f"cannot write results to {output_dir}: {exc.strerror or exc}") from None


def run_texts_sample(tasks: Sequence[Task], ctx: RunContext) -> list[str]:
    """A sample of the run's texts for the identity of Python objects; a task that fails to load adds nothing."""
    import copy

    from ..models.fingerprint import sample_texts

    try:
        data = DataContext(ctx.data_dir, download=False, allow_modified=ctx.allow_modified_data)
    except CompevalError:
        return []
    texts: list[str] = []
    for task in tasks:
        try:
            twin = copy.deepcopy(task)
            twin.context = ctx
            twin.load(data.for_task())
            texts += twin.texts()
        except Exception:  # noqa: BLE001 - reported by the task's own jobs
            continue
    return sample_texts(texts)


def refuse_shared_user_names(tasks: Sequence[Task]) -> None:
    """Two data sets of one run under one task name are refused: the ranking keeps one result per model and
    task name. One file under other options is one task's variants, as a built-in task's are."""
    from ..errors import SpecError
    from ..tasks.user.base import SUITE as USER_SUITE

    first: dict[str, Task] = {}
    for task in (t for t in tasks if t.metadata.suite == USER_SUITE):
        other = first.setdefault(task.metadata.name, task)
        if other.source_record.get("source") != task.source_record.get("source"):
            raise SpecError(f"task name {task.metadata.name!r} is given to two data sets of this run "
                            f"({other.source_record.get('source')}, {task.source_record.get('source')}); give "
                            "each its own name=…")


def refuse_names_held_in_folder(tasks: Sequence[Task], store: ResultStore) -> None:
    """A user task whose name the results folder gives to another data set is refused (two numbers under one
    name); a stale result of the same file is not in the way (the store leaves it out)."""
    from ..errors import SpecError
    from ..tasks.user.base import SUITE as USER_SUITE

    def where(record: dict) -> object:  # a file by its resolved path (a relative name is the same file)
        return record.get("data_file") or record.get("source")

    mine = {t.metadata.name: t.source_record for t in tasks if t.metadata.suite == USER_SUITE}
    if not mine or not store.root.is_dir():
        return
    read = {Path(r["data_file"]): r["data_sha256"] for r in mine.values() if "data_file" in r}  # not hashed again
    for path, result in store.iter_results(read):
        source, name = where(result.counts), result.task.name
        if result.task.suite == USER_SUITE and name in mine and isinstance(source, str) \
                and source != where(mine[name]):
            raise SpecError(f"task name {name!r} already names another data set in {store.root} ({source}, in "
                            f"{path}); give this one ({where(mine[name])}) another name=…, or another --output-dir")


def plan(models: Sequence[str | Spec | Any], tasks: Sequence[str | Task], ctx: RunContext) -> Plan:
    """Models × tasks → the jobs whose result is not stored yet (all with ``overwrite``). Every model is resolved
    before any is built (weights load lazily); tasks are built here, once; repeats are planned once."""
    by_slug: dict[str, Task] = {}
    for t in tasks:
        for task in (get_tasks(t) if isinstance(t, str) else [t]):
            by_slug.setdefault(task.slug, task)
    task_list = list(by_slug.values())
    refuse_shared_user_names(task_list)
    builder = ModelBuilder.for_context(ctx)
    # Resolved once, all before any is built: a bad spec fails the run before any work.
    resolved = [builder.resolve(m) if isinstance(m, (str, Spec, ResolvedModel)) else None for m in models]
    specs = [task_spec(t) for t in task_list]
    cache = builder.cache = EmbeddingCache(ctx.cache_dir)
    store = ResultStore(ctx.output_dir, result_slug)
    refuse_names_held_in_folder(task_list, store)
    try:
        data = DataContext(ctx.data_dir, download=False)
    except CompevalError:
        data = None  # a data folder that does not exist: every stored data-backed result is stale
    out = Plan(jobs=[], skipped=[], models={}, tasks=task_list, cache=cache, builder=builder)
    sample: list[str] | None = None  # the run's own texts, for Python objects' identity
    stored: dict | None = None  # the ids the results folder holds, per model (read when first needed)
    for m, r in zip(models, resolved):
        t0 = time.perf_counter()
        try:
            if r is not None:
                model = builder(r)
            else:
                if sample is None:
                    sample = run_texts_sample(task_list, ctx)
                model = as_model(m, sample=sample)
                if model is not m:  # a user's object (compeval's own models pass their own tests)
                    check_before_use(model, type(m).__name__)
                if ctx.reuse_objects and hasattr(model, "cross_run_reuse"):
                    model.cross_run_reuse = True
                model = cache.wrap(model)
        except CompevalError as exc:
            # A bad spec (unknown repo, dtype…) or a Python object that cannot be identified (its encode
            # fails on the probe texts) fails its own jobs; the other models run.
            label = str(m) if r is not None else type(m).__name__
            record_failure(ctx, exc, "model", label, stage="building the model")
            out.failed += [JobOutcome(label, task.slug, "failed",
                                      error=str(exc) if label in str(exc) else f"{label}: {exc}")
                           for task in task_list]
            continue
        out.load_seconds += time.perf_counter() - t0
        config = model.config
        if config.id in out.models:
            continue
        out.models[config.id] = model
        folder = model_folder(config)
        # A Python object identified by its output only: its stored results are from another run
        reusable = getattr(getattr(model, "inner", model), "cross_run_reuse", True)
        for task, tspec in zip(task_list, specs):
            found = None if ctx.overwrite else stored_result(store, folder, config, task, out.warnings, ctx=ctx, data=data)
            if found is not None and not reusable:
                out.warnings.append(f"{config.display} × {task.slug}: recomputed, not reused: a Python object "
                                    "identified by its output only (pass reuse_objects=True, or give it a "
                                    "compeval_digest)")
                found = None
            if found is not None:
                out.skipped.append(JobOutcome(config.display, task.slug, "skipped", found))
            else:
                out.jobs.append(Job(model=config, task=task, resolved=r, task_spec=tspec))
        if out.jobs and out.jobs[-1].model is config:  # something to compute: say if an old identity is left
            stored = stored if stored is not None else stored_identities(ctx.output_dir)
            line = superseded(config, stored)
            if line:
                out.warnings.append(line)
    return out


def run_model_here(resolved: ResolvedModel, tasks: list[Task], ctx: RunContext, reporter: Reporter) -> ExecutionReport:
    """One model's pending jobs planned and run in this process (an isolated worker's body), on the tasks
    the driver built. Results another process wrote meanwhile are skipped, as on a re-run."""
    the_plan = plan([resolved], tasks, ctx)
    report = ExecutionReport(outcomes=the_plan.skipped + the_plan.failed, load_seconds=the_plan.load_seconds)
    try:
        for outcome in report.outcomes:
            reporter.job_done(outcome)
        if the_plan.jobs:
            report.merge(LocalExecutor().execute(the_plan, ctx, reporter))
    finally:
        the_plan.cache.close()
    return report


def choose_isolation(executor: Any, the_plan: Plan, ctx: RunContext, isolate: bool | None,
                     model_timeout: float | None) -> Any:
    """The local executor becomes ``IsolatedExecutor`` when asked, or by default for more than one CUDA torch
    model or a model timeout; the Ray executor takes the isolation settings itself."""
    from .isolation import IsolatedExecutor, uses_gpu_torch_models

    if isolate is False and model_timeout is not None:
        raise CompevalError("--model-timeout needs --isolate: a model running in the driver's process cannot be stopped")
    if executor.name == "ray":
        if isolate or model_timeout is not None:
            executor.isolate, executor.model_timeout, executor.run_here = True, model_timeout, run_model_here
        return executor
    if not isinstance(executor, LocalExecutor):
        if isolate or model_timeout is not None:
            raise CompevalError(f"--isolate applies to the local and Ray executors, not {executor.name!r}")
        return executor
    if isolate is None:
        specs_only = all(j.resolved is not None and j.task_spec is not None for j in the_plan.jobs)
        isolate = model_timeout is not None or (specs_only and uses_gpu_torch_models(the_plan, ctx) > 1)
    return IsolatedExecutor(model_timeout, run_here=run_model_here) if isolate else executor


def run(models: Sequence[str | Any], tasks: Sequence[str | Task], ctx: RunContext | Path | str | None = None, *,
        executor: str | Any = "local", reporter: Reporter | None = None, report: bool = True,
        **settings: Any) -> RunSummary:
    """Run every model on every task; return what was done, skipped or failed.

    ``ctx`` is a ``RunContext``, or the results folder with ``RunContext``'s fields as keywords (README: Run
    settings); a context given whole passes the same folder checks (``RunContext.checked``). ``executor``:
    ``"local"``, ``"ray"`` or an executor object; Python objects run locally only.
    A job that raises fails alone (traceback in ``OUTPUT/logs/``). ``report`` writes ``OUTPUT/report.html``.
    """
    models = [models] if isinstance(models, str) else models  # run("glove-6b-50d", "sts3k", ...): one each
    tasks = [tasks] if isinstance(tasks, (str, Task)) else tasks
    if isinstance(ctx, RunContext):
        if settings:
            raise CompevalError(f"run settings given twice: a RunContext and {', '.join(settings)}=…; give one")
        ctx = ctx.checked()
    elif ctx is not None and "output_dir" in settings:
        raise CompevalError(f"results folder given twice: {ctx} and output_dir={settings['output_dir']}; give one")
    else:
        ctx = RunContext.for_run(settings.pop("output_dir", "results") if ctx is None else ctx, **settings)
    started = time.perf_counter()
    if ctx.progress is None:
        ctx = replace(ctx, progress=reporter is not None or interactive())
    drawn = RichReporter() if reporter is None and ctx.progress else None  # the bars live for the run
    reporter = drawn or reporter or Reporter()
    with drawn if drawn is not None else nullcontext():
        executor = make_executor(executor)
        if getattr(executor, "address", None) is None:  # a Ray cluster's address: its workers resolve it
            ctx = ctx.resolve()
        the_plan = plan(models, tasks, ctx)  # every spec and option is checked before anything is written
        try:
            check_writable(ctx.output_dir)
        except BaseException:
            the_plan.cache.close()
            raise
        executor = choose_isolation(executor, the_plan, ctx, ctx.isolate, ctx.model_timeout)
        for message in the_plan.warnings:
            warn = getattr(reporter, "warning", None)
            if callable(warn):
                warn(message)
        try:
            executor.check(the_plan)
            for outcome in the_plan.skipped + the_plan.failed:
                reporter.job_done(outcome)
            executed = executor.execute(the_plan, ctx, reporter) if the_plan.jobs else None
        finally:
            the_plan.cache.close()
    summary = RunSummary(outcomes=list(the_plan.skipped) + list(the_plan.failed), executor=executor.name,
                         load_seconds=the_plan.load_seconds, warnings=list(the_plan.warnings))
    if executed is not None:
        totals = executed.stats
        summary.outcomes += executed.outcomes
        summary.requested, summary.unique, summary.encoded = totals.requested, totals.unique, totals.encoded
        summary.from_cache = totals.from_disk
        summary.encode_seconds = totals.encode_seconds + totals.score_seconds
        summary.load_seconds += executed.load_seconds
        summary.task_load_seconds = executed.task_load_seconds
        summary.evaluate_seconds = executed.evaluate_seconds
    if report and any(o.path is not None for o in summary.outcomes):
        _write_report(summary, ctx.output_dir)
    summary.seconds = time.perf_counter() - started
    return summary


def _write_report(summary: RunSummary, output_dir: Path) -> None:
    """``OUTPUT/report.html`` after a Python ``run()`` (the CLI writes it itself, with its own messages)."""
    import warnings

    from ..errors import CompevalWarning
    from ..report import build_report
    from .progress import first_line

    try:
        summary.report = build_report(output_dir, Path(output_dir) / "report.html").path
    except Exception as exc:  # the results are written; `compeval report` can build it later
        message = f"report not written: {first_line(exc)}; try compeval report {output_dir}"
        summary.warnings.append(message)
        warnings.warn(message, CompevalWarning, stacklevel=3)
