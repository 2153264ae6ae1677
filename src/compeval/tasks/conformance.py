"""``check_task``: the checks every task passes before its numbers are published (docs/contributing.md).

It catches what silently corrupts results: options lost in the spec string, scores that change under one
seed, scores without ``n`` or with a broken interval, counts that are not JSON, incomplete metadata."""
from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, Sequence

import numpy as np
from pydantic_core import to_json

from .. import seeds
from ..data.registry import DataContext, get_source
from ..errors import DataError
from ..models.protocol import ModelConfig
from ..results.schema import Score
from .base import Task, TaskMetadata, TaskOutput
from .options import TaskOptions
from .registry import TASKS, get_tasks
from ..lazy import lazy_module

pd = lazy_module("pandas")

_WORD = re.compile(r"[a-z0-9]+")


class TaskConformanceError(AssertionError):
    """A task broke the contract; the message names the task and the check."""


def _fail(task: str, check: str, msg: str):
    raise TaskConformanceError(f"[{task}: {check}] {msg}")


@lru_cache(maxsize=None)
def _word_vector(word: str, dim: int) -> np.ndarray:
    return seeds.keyed_rng(f"check:{word}").standard_normal(dim).astype(np.float32)


class CheckEncoder:
    """A tiny deterministic encoder with token vectors, so every task runs on it in seconds; records its texts."""

    def __init__(self, dim: int = 16):
        self.dim = dim
        self.config = ModelConfig(family="check-encoder.v1", name="check-encoder", params={"dim": dim})
        self.requested: set[str] = set()

    def _words(self, text: str) -> list[str]:
        return _WORD.findall(text.lower())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.requested.update(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            words = self._words(t)
            if words:
                out[i] = np.mean([_word_vector(w, self.dim) for w in words], axis=0)
        return out

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]:
        return [np.stack([_word_vector(w.lower(), self.dim) for w in s]).reshape(len(s), 1, self.dim)
                if s else np.zeros((0, 1, self.dim), np.float32) for s in sentences]


def check_metadata(cls: type) -> None:
    meta = getattr(cls, "metadata", None)
    name = getattr(meta, "name", cls.__name__)
    if not isinstance(meta, TaskMetadata):
        _fail(name, "metadata", f"{cls.__name__}.metadata must be a TaskMetadata")
    if TASKS.get(name) is not cls:
        _fail(name, "metadata", "not registered under its metadata name (use @register_task)")
    for field in ("description", "main_metric", "main_subset", "reference"):
        if not str(getattr(meta, field)).strip():
            _fail(name, "metadata", f"metadata.{field} is empty")
    for source in meta.data_sources:
        try:
            get_source(source)
        except DataError as exc:
            _fail(name, "metadata", str(exc))
    if not (isinstance(cls.Options, type) and issubclass(cls.Options, TaskOptions)):
        _fail(name, "options", "Options must be a TaskOptions subclass")


def _rebuild(task: Task) -> Task:
    name = task.name
    spec = name + task.options.spec_suffix()
    try:
        rebuilt = get_tasks(spec)
    except Exception as exc:
        _fail(name, "options round-trip", f"spec {spec!r} does not rebuild the task ({exc})")
    if len(rebuilt) != 1 or type(rebuilt[0]) is not type(task):
        _fail(name, "options round-trip", f"spec {spec!r} builds {[type(t).__name__ for t in rebuilt]}")
    again = rebuilt[0]
    if again.params != task.params or again.slug != task.slug:
        _fail(name, "options round-trip", f"spec {spec!r} gives params {again.params} / slug {again.slug}, "
              f"not {task.params} / {task.slug}")
    if again.name + again.options.spec_suffix() != spec:
        _fail(name, "options round-trip", "the rebuilt task writes a different spec string")
    return again


def check_options(task: Task) -> Task:
    """Defaults and ``task``'s options survive spec → task → spec; returns the task rebuilt from its spec."""
    cls, name = type(task), task.name
    default = cls()
    if default.slug != name or default.options.spec_suffix():
        _fail(name, "options defaults", f"the default task must have slug {name!r}, got {default.slug!r}")
    if default.params != cls.Options.default_params():
        _fail(name, "options defaults", "params of the default task differ from the Options defaults")
    _rebuild(default)
    if cls(**task.params).params != task.params:
        _fail(name, "options round-trip", "Task(**task.params) does not rebuild the same params")
    return _rebuild(task)


def _finite_or_none(x: Any) -> bool:
    return x is None or (isinstance(x, (int, float)) and math.isfinite(x))


def check_output(task: Task, out: Any) -> None:
    """The result schema: valid scores with ``n`` and intervals, the main score present, JSON-safe counts."""
    name, meta = task.name, task.metadata
    if not isinstance(out, TaskOutput):
        _fail(name, "result schema", f"evaluate must return a TaskOutput, got {type(out).__name__}")
    if not out.scores:
        _fail(name, "result schema", "no scores")
    for s in out.scores:
        Score.model_validate(s.model_dump())
        where = f"score {s.subset}/{s.metric}"
        if s.n < 0:
            _fail(name, "result schema", f"{where}: n={s.n} is negative")
        if not all(_finite_or_none(v) for v in (s.value, s.ci_low, s.ci_high)):
            _fail(name, "result schema", f"{where}: value or interval is NaN or infinite (use None for missing)")
        if (s.ci_low is None) != (s.ci_high is None):
            _fail(name, "result schema", f"{where}: an interval needs both ends")
        if s.ci_low is not None and s.ci_low > s.ci_high:
            _fail(name, "result schema", f"{where}: ci_low {s.ci_low} > ci_high {s.ci_high}")
    main = [s for s in out.scores if s.metric == meta.main_metric and s.subset == meta.main_subset]
    if len(main) != 1:
        _fail(name, "result schema", f"expected one main score {meta.main_subset}/{meta.main_metric}, "
              f"found {len(main)}")
    (m,) = main
    if m.value is None or m.n < 1 or m.ci_low is None:
        _fail(name, "result schema", f"main score needs a value, n >= 1 and an interval: {m}")
    if not isinstance(out.n_items, int) or out.n_items < 0:
        _fail(name, "result schema", f"n_items={out.n_items!r}")
    try:
        to_json(out.counts)
    except Exception as exc:
        _fail(name, "result schema", f"counts cannot be written as JSON ({exc})")
    if out.predictions is not None:
        if not isinstance(out.predictions, pd.DataFrame):
            _fail(name, "result schema", "predictions must be a DataFrame or None")
        out.predictions.to_json(orient="records", lines=True)


def _numbers(out: TaskOutput) -> list[tuple]:
    return [(s.subset, s.metric, s.value, s.ci_low, s.ci_high, s.n) for s in out.scores]


def check_task(task: Task | type, data: DataContext | None = None, *, seed: int = 0) -> list[str]:
    """Raise ``TaskConformanceError`` naming the first broken rule; return notes on what was not checked.

    ``task`` is a task (use cheap options: it is evaluated twice) or a task class (its defaults)."""
    from ..cache.cached import EmbeddingCache  # the runner's wrapper, in memory only

    task = task() if isinstance(task, type) else task
    cls, name = type(task), task.name
    check_metadata(cls)
    twin = check_options(task)
    need = task.missing_requirements()
    if need:
        return [f"{name}: not evaluated ({need})"]
    data = data or DataContext(None, download=False)
    encoder = CheckEncoder()
    model = EmbeddingCache(None).wrap(encoder)
    task.load(data)
    listed = task.texts()
    if not all(isinstance(t, str) for t in listed):
        _fail(name, "texts", "texts() must return strings")
    first = task.evaluate(model, seed=seed)
    check_output(task, first)
    twin.load(data)
    second = twin.evaluate(model, seed=seed)
    if _numbers(first) != _numbers(second):
        _fail(name, "deterministic", "two evaluations with the same seed (the second on the task rebuilt from "
              "its spec string) gave different scores")
    if listed:
        extra = encoder.requested - set(listed)
        if extra:
            _fail(name, "texts", f"evaluate encoded {len(extra)} text(s) not listed by texts(), "
                  f"e.g. {sorted(extra)[:2]}")
    check_recomputation(twin, first, seed)
    return []


def check_recomputation(task: Task, out: TaskOutput, seed: int) -> None:
    """``score_predictions`` gives back ``evaluate``'s scores from predictions as the store writes them (15 digits),
    within ``results.compare.FLOAT_TOLERANCE``; a task that cannot says why (``not_recomputed``)."""
    from ..results.compare import same

    name = task.name
    if not type(task).recomputes_scores():
        if not type(task).not_recomputed.strip():
            _fail(name, "recomputation", "neither score_predictions nor a not_recomputed reason")
        return
    if out.predictions is None:
        _fail(name, "recomputation", "score_predictions is declared but evaluate wrote no predictions")
    import io

    from ..results.store import predictions_jsonl

    text = predictions_jsonl(out.predictions)
    again = task.score_predictions(pd.read_json(io.StringIO(text), lines=True, dtype=False), seed=seed)
    stored = {(s.subset, s.metric): (s.value, s.ci_low, s.ci_high, s.n) for s in out.scores}
    fresh = {(s.subset, s.metric): (s.value, s.ci_low, s.ci_high, s.n) for s in again}
    if stored.keys() != fresh.keys() or not all(same(list(stored[k]), list(fresh[k])) for k in stored):
        differ = sorted(k for k in stored if k not in fresh or not same(list(stored[k]), list(fresh[k])))
        _fail(name, "recomputation", f"score_predictions does not give evaluate's scores (e.g. {differ[:2]})")
