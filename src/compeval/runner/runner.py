"""The one runner: plans the model × task grid, skips finished jobs, encodes each model's texts once
across all its tasks, evaluates, and writes typed results atomically.

Everything here is usable from Python without the CLI: ``run(["glove-6b-50d"], ["sts3k"], "results")``.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from ..cache import EmbeddingCache
from ..data.registry import DataContext
from ..errors import CompevalError
from ..models.protocol import ModelConfig, as_model, can_encode
from ..models.registry import ModelBuilder, expand_alias, resolve_family
from ..results.schema import TaskInfo, TaskResult
from ..results.store import ResultStore
from ..specs import parse_spec
from ..tasks.base import Task
from ..tasks.registry import get_tasks
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
    encode_seconds: float = 0.0
    load_seconds: float = 0.0

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


def validate_model_spec(spec: str) -> None:
    """Fail before any work when a model spec names nothing registered."""
    parsed = expand_alias(parse_spec(spec))
    resolve_family(parsed.name)


def model_record(config: ModelConfig) -> dict[str, Any]:
    return {**config.model_dump(mode="json"), "display": config.display}


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
) -> RunSummary:
    """Run every model on every task; return what was done, skipped or failed."""
    started = time.perf_counter()
    reporter = reporter or Reporter()
    store = ResultStore(output_dir)
    cache = EmbeddingCache(cache_dir)
    builder = ModelBuilder(cache=cache, data_dir=Path(data_dir) if data_dir else None)
    data = DataContext(Path(data_dir) if data_dir else None, download=download)
    task_list: list[Task] = []
    for t in tasks:
        task_list.extend(get_tasks(t) if isinstance(t, str) else [t])
    for m in models:
        if isinstance(m, str):
            validate_model_spec(m)
    summary = RunSummary()
    loaded: dict[int, str | None] = {}  # task -> None when loaded, else the load error

    for m in models:
        t0 = time.perf_counter()
        model = builder(m) if isinstance(m, str) else cache.wrap(as_model(m))
        summary.load_seconds += time.perf_counter() - t0
        slug = model.config.slug
        pending = []
        for task in task_list:
            if store.exists(slug, task.slug) and not overwrite:
                summary.outcomes.append(JobOutcome(model.config.display, task.slug, "skipped",
                                                   store.path(slug, task.slug)))
                reporter.job_done(summary.outcomes[-1])
            else:
                pending.append(task)
        if not pending:
            continue
        reporter.model_start(model.config.display, len(pending))
        ready = []
        for task in pending:
            if id(task) not in loaded:
                try:
                    task.load(data)
                    loaded[id(task)] = None
                except CompevalError as exc:  # e.g. a corpus the user does not have: fail that job only
                    loaded[id(task)] = str(exc)
            if loaded[id(task)] is None:
                ready.append(task)
            else:
                summary.outcomes.append(JobOutcome(model.config.display, task.slug, "failed", error=loaded[id(task)]))
                reporter.job_done(summary.outcomes[-1])
        pending = ready
        union = list(dict.fromkeys(t for task in pending for t in task.texts())) if can_encode(model) else []
        todo = model.warm(union) if union and hasattr(model, "warm") else union
        if callable(getattr(model, "load", None)) and (todo or not union):
            t0 = time.perf_counter()
            model.load()  # weights only when something must be encoded (or the tasks did not say)
            summary.load_seconds += time.perf_counter() - t0
        if union:
            model.on_progress = lambda done, total, _n=model.config.display: reporter.encoding(_n, done, total)
            model.encode(union)
            model.on_progress = None
        for task in pending:
            summary.outcomes.append(_run_job(model, task, data, store, seed))
            reporter.job_done(summary.outcomes[-1])

    totals = cache.totals()
    summary.requested, summary.unique, summary.encoded = totals.requested, totals.unique, totals.encoded
    summary.from_cache = totals.from_disk
    summary.encode_seconds = totals.encode_seconds + totals.score_seconds
    summary.seconds = time.perf_counter() - started
    cache.close()
    return summary


def _run_job(model: Any, task: Task, data: DataContext, store: ResultStore, seed: int) -> JobOutcome:
    display, slug = model.config.display, model.config.slug
    started_at = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    before = dict(model.stats.as_dict()) if hasattr(model, "stats") else {}
    try:
        output = task.evaluate(model, seed=seed)
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
