"""One model's lifecycle in one process (``ModelSession``). A job's exceptions fail that job only (traceback
in ``OUTPUT/logs/``); the ``reraise`` types propagate, so the Ray executor retries them.
"""
from __future__ import annotations

import time
import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .. import threads
from ..context import RunContext
from ..data.registry import DataContext
from ..errors import CompevalError
from ..models.protocol import CachedEncoder, Closeable, Loadable, can_encode
from ..paths import safe_component
from ..redact import redact
from ..results.schema import TaskResult
from ..results.store import ResultStore, model_folder
from ..seeds import SEED_RULE
from ..tasks.base import TaskOutput
from .environment import result_environment
from .jobs import JobOutcome, Reporter, model_record

LOG_FOLDER = "logs"
Reraise = tuple[type[BaseException], ...]


def write_log(output_dir: Path | str | None, text: str, task_slug: str, model_slug: str | None = None,
              stage: str = "evaluate") -> Path | str:
    """Append ``text`` (a traceback, or an error's message) to ``OUTPUT/logs/[MODEL__]TASK.log``; the path,
    or why it could not be written (never raises: a read-only output is said so in the job's line)."""
    if output_dir is None:
        return "no output folder"
    text, task_slug = redact(text), redact(task_slug)  # a spec's credentials never reach a log or its name
    model_slug = redact(model_slug) if model_slug else model_slug
    name = safe_component(f"{model_slug}__{task_slug}" if model_slug else task_slug) + ".log"
    path = Path(output_dir) / LOG_FOLDER / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"--- {datetime.now(timezone.utc).isoformat(timespec='seconds')} {stage} "
                    f"{model_slug or '-'} × {task_slug}\n")
            f.write(text if text.endswith("\n") else text + "\n")
    except OSError as log_exc:
        return str(log_exc.strerror or log_exc)
    return path


def record_failure(ctx: RunContext, exc: BaseException, task_slug: str, model_slug: str | None = None,
                   stage: str = "evaluate") -> str:
    """The one line a failed job shows (compeval's own errors: their message); the traceback goes to
    ``OUTPUT/logs/[MODEL__]TASK.log``. Never raises: a log that cannot be written is said so in the line."""
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    where = write_log(ctx.output_dir, trace, task_slug, model_slug, stage)
    if isinstance(exc, CompevalError):
        return redact(str(exc))
    line = redact(f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__)
    if ctx.output_dir is None:
        return f"{line} (while {stage})"
    if not isinstance(where, Path):
        return f"{line} (while {stage}; traceback not written: {where})"
    return f"{line} (while {stage}; traceback in {where})"


def load_task(task: Any, data: DataContext, ctx: RunContext, reraise: Reraise = ()) -> str | None:
    """Give the task the run's settings (``task.context``) and load it; None, or why it failed."""
    task.context = ctx
    try:
        task.load(data)
    except reraise:
        raise
    except Exception as exc:  # a missing corpus, a bad file, a bug in the task: its jobs fail, no others
        return record_failure(ctx, exc, task.slug, stage="loading the task")
    return None


class StartedJob:
    """One job with its model part done (``task.staged``, or the whole ``evaluate`` for a task that does not
    stage): ``compute`` runs the rest in any thread, ``write`` records the result in the runner's thread. The
    cache counts cover the model part, the only part that reads the model."""

    def __init__(self, model: Any, task: Any, data: DataContext, ctx: RunContext, reraise: Reraise = (), *,
                 stage: bool = False):
        self.model, self.task, self.data, self.ctx, self.reraise = model, task, data, ctx, reraise
        self.started_at = datetime.now(timezone.utc)
        self.output: Any = None
        self.failure: Exception | None = None
        self.rest: Callable[[], Any] | None = None
        counters = model.stats if isinstance(model, CachedEncoder) else None
        before = dict(counters.as_dict()) if counters is not None else {}
        t0 = time.perf_counter()
        try:
            self.rest = task.staged(model, seed=ctx.seed) if stage else None
            if self.rest is not None and not callable(self.rest):
                raise CompevalError(f"task {task.slug}: staged() returned a {type(self.rest).__name__}; return the "
                                    "call that finishes the evaluation, or None")
            if self.rest is None:
                self.output = task.evaluate(model, seed=ctx.seed)
        except reraise:
            raise
        except Exception as exc:  # the model, the task or the disk: this job fails, the grid goes on
            self.failure = exc
        self.seconds = time.perf_counter() - t0
        after = counters.as_dict() if counters is not None else {}
        self.cache = {k: after[k] - before.get(k, 0) for k in after}

    @property
    def pending(self) -> bool:
        """True while the staged rest has not run."""
        return self.rest is not None and self.failure is None

    def compute(self) -> None:
        """The staged rest (in any thread); a failure is kept for ``write``."""
        t0 = time.perf_counter()
        try:
            if self.pending:
                with threads.without_model(self.task.slug):
                    self.output = self.rest()
        except Exception as exc:
            self.failure = exc
        finally:
            self.rest = None
            self.seconds += time.perf_counter() - t0

    def write(self, store: ResultStore) -> JobOutcome:
        """The result written atomically, or the failure logged; the outcome."""
        display, slug = self.model.config.display, model_folder(self.model.config)
        try:
            if self.failure is not None:
                raise self.failure
            output, meta = self.output, self.task.metadata
            if not isinstance(output, TaskOutput):
                raise CompevalError(f"task {self.task.slug}: its evaluation returned a {type(output).__name__}, "
                                    "not a TaskOutput")
            main = next((s.value for s in output.scores
                         if s.metric == meta.main_metric and s.subset == meta.main_subset), None)
            result = TaskResult(
                model=model_record(self.model.config),
                task=meta.task_info(self.task.params),
                data=self.data.provenance(meta.data_sources),
                environment=result_environment(),
                seed=self.ctx.seed,
                seed_rule=SEED_RULE,
                started_at=self.started_at,
                duration_seconds=self.seconds,
                n_items=output.n_items,
                main_score=main,
                scores=output.scores,
                counts=output.counts,
                cache=self.cache,
            )
            path = store.save(result, slug, self.task.slug, output.predictions)
        except self.reraise:
            raise
        except Exception as exc:
            return JobOutcome(display, self.task.slug, "failed", seconds=self.seconds,
                              error=record_failure(self.ctx, exc, self.task.slug, slug))
        return JobOutcome(display, self.task.slug, "done", path, self.seconds, output.n_items, main)


def evaluate_job(model: Any, task: Any, data: DataContext, store: ResultStore, ctx: RunContext,
                 reraise: Reraise = ()) -> JobOutcome:
    """Evaluate one loaded task on one model, whole and here, and write its result atomically."""
    job = StartedJob(model, task, data, ctx, reraise, stage=True)  # staged as on the pool: the same checks at any load
    job.compute()
    return job.write(store)


class ModelSession:
    """One model in one process: ``prepare`` (load → warm → encode the union once), ``evaluate`` each job,
    ``close``. Capabilities come from the model protocol (``Loadable``, ``CachedEncoder``, ``Closeable``)."""

    def __init__(self, model: Any, ctx: RunContext, store: ResultStore | None = None, *,
                 reporter: Reporter | None = None, reraise: Reraise = ()):
        self.model, self.ctx, self.store = model, ctx, store
        self.reporter, self.reraise = reporter, reraise
        self.load_seconds = 0.0  # weights
        self.broken: str | None = None  # why the weights did not load: every job of this model fails so

    def union(self, tasks: Sequence[Any]) -> list[str]:
        """Every text the tasks declare, once, in order ([] for a model that does not encode)."""
        if not can_encode(self.model):
            return []
        return list(dict.fromkeys(t for task in tasks for t in task.texts()))

    def load(self) -> None:
        """Load the weights now, timed apart from encoding (a lazily loading model only)."""
        if not isinstance(self.model, Loadable) or self.broken is not None:
            return
        t0 = time.perf_counter()
        announce = getattr(self.reporter, "loading", None)
        if callable(announce):
            announce(self.model.config.display)
        try:
            self.model.load()
        except self.reraise:
            raise
        except Exception as exc:
            self.broken = record_failure(self.ctx, exc, "load", self.model.config.slug, stage="loading the model")
        finally:
            self.load_seconds += time.perf_counter() - t0

    def prepare(self, tasks: Sequence[Any], *, shared: dict[str, Any] | None = None, encode: bool = True,
                load_without_texts: bool = True) -> tuple[list[str], np.ndarray | None, str | None]:
        """Encode the union once, loading weights only if the cache lacks some text. Returns (union, vectors or
        None, why the union failed): then each task encodes its own texts and only the culprit fails."""
        union = self.union(tasks)
        cached = self.model if isinstance(self.model, CachedEncoder) else None
        if union and shared is not None and cached is not None:
            index = {t: i for i, t in enumerate(shared["texts"])}
            mine = [t for t in union if t in index]
            cached.prime(mine, shared["vectors"][[index[t] for t in mine]])
        todo = cached.warm(union) if union and cached is not None else union
        if tasks and (todo or (load_without_texts and not union)):
            self.load()
        if not (union and encode) or self.broken is not None:
            return union, None, self.broken
        display = self.model.config.display
        if cached is not None and self.reporter is not None and self.ctx.progress:
            cached.on_progress = lambda done, total: self.reporter.encoding(display, done, total)
        try:
            return union, self.model.encode(union), None
        except self.reraise:
            raise
        except Exception as exc:  # not logged here: the task that gives the culprit fails with its own log
            return union, None, str(exc) if isinstance(exc, CompevalError) else f"{type(exc).__name__}: {exc}"
        finally:
            if cached is not None:
                cached.on_progress = None

    def evaluate(self, task: Any, data: DataContext) -> JobOutcome:
        """One job: evaluate and write (``evaluate_job``), unless the weights failed to load."""
        job = self.start(task, data, stage=True)  # staged as on the pool: the same checks at any load
        if isinstance(job, JobOutcome):
            return job
        job.compute()
        return job.write(self.store)

    def start(self, task: Any, data: DataContext, *, stage: bool) -> "StartedJob | JobOutcome":
        """A job with its model part done (``stage``: a staging task leaves the rest for ``compute``), or its
        failed outcome when the weights did not load."""
        if self.broken is not None:
            return JobOutcome(self.model.config.display, task.slug, "failed", error=self.broken)
        assert self.store is not None, "a session that evaluates needs a result store"
        return StartedJob(self.model, task, data, self.ctx, self.reraise, stage=stage)

    def close(self) -> None:
        """Let the model release its weights (it loads them again if a later model shares it)."""
        if isinstance(self.model, Closeable):
            self.model.close()
