"""The loop over a model's jobs that every executor runs (docs/architecture.md, Executors); the Ray executor
splits it into ``encode_model_texts`` and evaluation from the shared vectors.
"""
from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Sequence

from .. import threads
from ..cache import CachedModel, EmbeddingCache
from ..context import RunContext
from ..data.registry import DataContext
from ..errors import CompevalError
from ..models.protocol import ModelConfig
from ..models.registry import ModelBuilder, ResolvedModel
from ..results.store import ResultStore
from ..tasks.base import Task
from .jobs import ExecutionReport, JobOutcome, Reporter, text_digest
from .session import ModelSession, Reraise, load_task


class TaskLoader:
    """Loads each task once in this process, for every model; remembers the data files it read (its result
    lists only those) or why it failed to load (that task's jobs fail, no others)."""

    def __init__(self, context: RunContext, reraise: Reraise = ()):
        self.context = context  # with the process's model builder attached (tasks' baseline models)
        self.reraise = reraise
        self.data = DataContext(context.data_dir, download=context.download,
                                allow_modified=context.allow_modified_data)
        self._loaded: dict[int, tuple[Task, DataContext, str | None]] = {}
        self.seconds = 0.0  # spent loading, over every call

    def load(self, task: Task) -> tuple[DataContext, str | None]:
        """The files the task read and None, or the one line saying why it could not be loaded."""
        key = id(task)
        if key not in self._loaded:
            t0 = time.perf_counter()
            files = self.data.for_task()
            self._loaded[key] = (task, files, load_task(task, files, self.context, self.reraise))
            self.seconds += time.perf_counter() - t0
        _, files, error = self._loaded[key]
        return files, error


class _CacheCounts:
    """The cache counters one call adds (the cache may be shared by the whole run), read into a report."""

    def __init__(self, model: Any, context: RunContext):
        builder_cache = getattr(context.model_builder, "cache", None)
        self.cache: EmbeddingCache | None = builder_cache if isinstance(builder_cache, EmbeddingCache) else (
            model.cache if isinstance(model, CachedModel) else None)
        self.before = {cid: s.as_dict() for cid, s in self.cache.stats.items()} if self.cache is not None else {}

    def into(self, report: ExecutionReport) -> None:
        if self.cache is None:
            return
        for cid, stats in self.cache.stats.items():
            was = self.before.get(cid, {})
            delta = {k: v - was.get(k, 0) for k, v in stats.as_dict().items()}
            if any(delta.values()):
                report.count(cid, delta, {text_digest(t) for t in stats._seen})


def _load(tasks: Sequence[Task], loader: TaskLoader, display: str, report: ExecutionReport,
          reporter: Reporter) -> list[tuple[Task, DataContext]]:
    """Load every task (a failed one is its job's outcome at once); the loaded ones with their files."""
    ready = []
    before = loader.seconds
    for task in tasks:
        files, error = loader.load(task)
        if error is None:
            ready.append((task, files))
        else:
            _done(report, reporter, JobOutcome(display, task.slug, "failed", error=error))
    report.task_load_seconds += loader.seconds - before
    return ready


def _working_on(reporter: Reporter, name: str, tasks: list[str], stage: str) -> None:
    """Tell the reporter what the model does now (a reporter written before ``working_on`` ignores it)."""
    tell = getattr(reporter, "working_on", None)
    if callable(tell):
        tell(name, tasks, stage)


def _done(report: ExecutionReport, reporter: Reporter, outcome: JobOutcome) -> None:
    report.outcomes.append(outcome)
    reporter.job_done(outcome)


def _evaluate(session: ModelSession, ready: list[tuple[Task, DataContext]], report: ExecutionReport,
              reporter: Reporter, display: str) -> None:
    """Each job in order, its model part in this thread. The rest of a staging task (``Task.staged``: trained
    heads, mostly) runs on a pool of one thread per free core (``threads.workers``), beside the next jobs: on
    a CPU, two single-threaded jobs keep both cores busy where one job's two threads split its matrix
    products unevenly. Results are written here, as each job finishes; the scores do not depend on the
    overlap (``tests/core/test_staged_jobs.py``)."""
    t0 = time.perf_counter()
    try:
        _evaluate_jobs(session, ready, report, reporter, display)
    finally:
        report.evaluate_seconds += time.perf_counter() - t0


def _evaluate_jobs(session: ModelSession, ready: list[tuple[Task, DataContext]], report: ExecutionReport,
                   reporter: Reporter, display: str) -> None:
    staging = sum(task.stages() for task, _ in ready)
    workers = threads.workers(staging) if session.ctx.torch_device() == "cpu" else 1
    if workers < 2:
        for task, files in ready:
            _working_on(reporter, display, [task.slug], "evaluating")
            _done(report, reporter, session.evaluate(task, files))
        return
    running: list[tuple[Any, Future]] = []

    def write_finished(wait: bool) -> None:
        for item in list(running):
            job, future = item
            if wait or future.done():
                future.result()  # compute() keeps a job's failure; anything else is the runner's own
                running.remove(item)
                _done(report, reporter, job.write(session.store))

    pool = ThreadPoolExecutor(workers, thread_name_prefix="compeval-job", initializer=threads.one_thread)
    with threads.sharing(workers), pool:
        try:
            for task, files in ready:
                _working_on(reporter, display, [task.slug], "evaluating")
                job = session.start(task, files, stage=task.stages())
                if isinstance(job, JobOutcome):
                    _done(report, reporter, job)
                elif job.pending:
                    running.append((job, pool.submit(job.compute)))
                else:
                    _done(report, reporter, job.write(session.store))
                write_finished(wait=False)
            write_finished(wait=True)
        except BaseException:  # Ctrl-C or the runner's own error: queued rests never start, finished ones are kept
            for job, future in running:
                if not future.cancel() and future.done() and future.exception() is None:
                    _done(report, reporter, job.write(session.store))
            raise


def run_model_jobs(model: Any, tasks: Sequence[Task], context: RunContext, store: ResultStore, reporter: Reporter,
                   *, loader: TaskLoader | None = None, shared: dict[str, Any] | None = None,
                   encode_one: bool = True, reraise: Reraise = ()) -> ExecutionReport:
    """Run ``model`` on each of ``tasks`` here and write each result, encoding the union of their texts once
    (``shared``: vectors another process encoded), under the run's ``--threads`` (``compeval/threads.py``).
    ``encode_one=False`` leaves a single task to encode its own."""
    with threads.installed(context.threads):
        return _run_model_jobs(model, tasks, context, store, reporter, loader, shared, encode_one, reraise)


def _run_model_jobs(model: Any, tasks: Sequence[Task], context: RunContext, store: ResultStore, reporter: Reporter,
                    loader: TaskLoader | None, shared: dict[str, Any] | None, encode_one: bool,
                    reraise: Reraise) -> ExecutionReport:
    report = ExecutionReport()
    counts = _CacheCounts(model, context)
    display = model.config.display
    reporter.model_start(display, len(tasks))
    loader = loader if loader is not None else TaskLoader(context, reraise)
    ready = _load(tasks, loader, display, report, reporter)
    session = ModelSession(model, context, store, reporter=reporter, reraise=reraise)
    _working_on(reporter, display, [task.slug for task, _ in ready], "encoding")
    session.prepare([task for task, _ in ready], shared=shared, encode=encode_one or len(ready) > 1)
    _evaluate(session, ready, report, reporter, display)
    session.close()
    report.load_seconds += session.load_seconds
    counts.into(report)
    return report


def encode_model_texts(model: Any, tasks: Sequence[Task], context: RunContext, *, reraise: Reraise = ()
                       ) -> tuple[ExecutionReport, list[str], dict[str, Any] | None]:
    """The Ray encode stage: (report, slugs of the tasks encoded, ``{"texts", "vectors"}`` or None). A union
    that cannot be encoded returns no slug, so each job encodes its own texts and only the culprit fails."""
    with threads.installed(context.threads):
        return _encode_model_texts(model, tasks, context, reraise)


def _encode_model_texts(model: Any, tasks: Sequence[Task], context: RunContext, reraise: Reraise
                        ) -> tuple[ExecutionReport, list[str], dict[str, Any] | None]:
    report = ExecutionReport()
    counts = _CacheCounts(model, context)
    session = ModelSession(model, context, reraise=reraise)
    ready = _load(tasks, TaskLoader(context, reraise), model.config.display, report, Reporter())
    declared = [task for task, _ in ready if session.union([task])]
    union, vectors, encode_error = session.prepare(declared, load_without_texts=False)
    session.close()
    report.load_seconds += session.load_seconds
    counts.into(report)
    slugs = [] if encode_error is not None else [task.slug for task in declared]
    payload = {"texts": union, "vectors": vectors} if vectors is not None else None
    return report, slugs, payload


def rebuild_model(context: RunContext, resolved: ResolvedModel, config: ModelConfig
                  ) -> tuple[EmbeddingCache, Any, ModelBuilder]:
    """In a worker: the model the plan built, from its resolved model, behind this process's own cache
    (the caller closes it); an error when this worker's build has another configuration id."""
    cache = EmbeddingCache(context.cache_dir)
    builder = ModelBuilder.for_context(context, cache)
    try:
        model = builder(resolved)
    except BaseException:
        cache.close()
        raise
    if model.config.id != config.id:
        cache.close()
        raise CompevalError(f"model {resolved} is {model.config.id} on this worker but {config.id} on the "
                            "driver (different weights or package versions?); its results would be mislabelled")
    return cache, model, builder


__all__ = ["TaskLoader", "encode_model_texts", "rebuild_model", "run_model_jobs"]
