"""Read a results folder once for the report, so everything it shows traces to a file there. Predictions are
large (240k rows per model in ``modifiers-test2``) and few figures need them: read on first use.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ..errors import CompevalError
from ..results.schema import PublishedScore, Score, TaskInfo, TaskResult
from ..data.registry import sha256_file
from ..results.store import ResultStore, model_labels

#: The task facts a result carries since they were recorded; ``None`` in an older result.
FACTS = ("directions", "ranked", "data_sources", "published")


def task_facts(info: TaskInfo) -> TaskInfo:
    """``info`` with every fact filled in: a result written before the facts were recorded takes them from
    the registered task of the same name, else the defaults (higher is better, ranked, nothing published)."""
    missing = [f for f in FACTS if getattr(info, f) is None]
    if not missing:
        return info
    from ..tasks.registry import TASKS, discover

    discover()
    cls = TASKS.get(info.name)
    known = cls.metadata.task_info(info.params) if cls is not None else TaskInfo(
        name=info.name, version=info.version, suite=info.suite, main_metric=info.main_metric,
        main_subset=info.main_subset, directions={}, ranked=True, data_sources=[], published=[])
    return info.model_copy(update={f: getattr(known, f) for f in missing})


@dataclass
class Entry:
    """One result file: a model × task (slug = the file name, which carries non-default options)."""

    path: Path
    result: TaskResult
    model: str
    task: str
    _predictions: pd.DataFrame | None = field(default=None, repr=False)
    _info: TaskInfo | None = field(default=None, repr=False)

    @property
    def info(self) -> TaskInfo:
        """The task as the result records it, its facts filled in for results older than the facts."""
        if self._info is None:
            self._info = task_facts(self.result.task)
        return self._info

    @property
    def direction(self) -> int:
        """Of the main metric: +1 higher is better, -1 lower is better, 0 neither (rank nothing)."""
        return self.info.direction(self.info.main_metric)

    @property
    def suite(self) -> str:
        return self.result.task.suite

    @property
    def task_name(self) -> str:
        return self.result.task.name

    @property
    def main(self) -> Score | None:
        return self.score(self.result.task.main_metric, self.result.task.main_subset)

    def score(self, metric: str, subset: str) -> Score | None:
        for s in self.result.scores:
            if s.metric == metric and s.subset == subset:
                return s
        return None

    def published_value(self, model: str, subset: str, metric: str) -> PublishedScore | None:
        """A published figure of this task, as this result carries it."""
        return next((p for p in self.info.published if (p.model, p.subset, p.metric) == (model, subset, metric)), None)

    def value(self, metric: str, subset: str) -> float | None:
        s = self.score(metric, subset)
        return None if s is None else s.value

    def predictions(self) -> pd.DataFrame | None:
        """The per-item predictions (None when the result has none or the file is gone); a file whose
        SHA-256 is not the one its result recorded is an error, never read."""
        if self._predictions is None:
            name = self.result.predictions_file
            if not name:
                return None
            file = self.path.with_name(name)
            if not file.is_file():
                return None
            recorded = self.result.predictions_sha256
            if recorded and sha256_file(file) != recorded:
                raise CompevalError(f"{file}: does not have the SHA-256 its result recorded (edited or replaced "
                                    "after the run), so no figure or test uses it; re-run that job")
            self._predictions = read_jsonl(file)
        return self._predictions

    def provenance(self) -> str:
        """One line per fact, for a hover title: what produced this number."""
        r = self.result
        params = ", ".join(f"{k}={v}" for k, v in sorted((r.model.get("params") or {}).items()))
        data = "; ".join(f"{d.source}@{(d.revision or 'local')[:12]}"
                         + ("" if d.verified is None else (" verified" if d.verified else " NOT verified"))
                         for d in r.data) or "generated in code"
        env = r.environment
        versions = ", ".join(f"{k} {env[k]}" for k in ("compeval", "python", "numpy", "scipy", "scikit-learn",
                                                       "torch", "sentence-transformers") if k in env)
        task_params = ", ".join(f"{k}={v}" for k, v in sorted(r.task.params.items()))
        return "\n".join([
            f"model {r.model.get('id', '?')} ({r.model.get('family', '?')}; {params})",
            f"task {r.task.name} v{r.task.version} ({task_params}); main {r.task.main_metric} on {r.task.main_subset}",
            f"data {data}",
            f"seed {r.seed}; run {r.started_at:%Y-%m-%d %H:%M} UTC; {r.duration_seconds:.1f}s; {r.n_items} items",
            f"versions: {versions}",
            f"file {self.path.parent.name}/{self.path.name}",
        ])


def read_jsonl(path: Path) -> pd.DataFrame:
    """A predictions file as a DataFrame (pyarrow when it can type the columns, pandas otherwise)."""
    try:
        import pyarrow.json as pj

        return pj.read_json(path).to_pandas()
    except Exception:  # mixed-type columns pyarrow cannot infer: pandas is slower but lenient
        try:
            return pd.read_json(path, lines=True)
        except ValueError as exc:
            raise CompevalError(f"{path}: unreadable predictions ({exc}); re-run that job") from None


class ResultsIndex:
    """Every result of a folder, addressable by model label and task slug."""

    def __init__(self, root: Path | str):
        self.root = Path(root)
        if not self.root.exists():
            raise CompevalError(f"results folder {self.root} does not exist")
        if not self.root.is_dir():
            raise CompevalError(f"{self.root} is a file; give the results folder written by `compeval run`")
        from ..tasks.registry import result_slug

        store = ResultStore(self.root, result_slug)
        loaded: list[tuple[Path, TaskResult]] = list(store.iter_results())
        #: files that are not readable, trusted results (stray, damaged, another schema, unverified, misplaced),
        #: with why: left out, reported
        self.unreadable: list[tuple[Path, str]] = list(store.unreadable)
        if not loaded:
            from ..results.store import left_out_note

            raise CompevalError(f"results folder {self.root} holds no results: expected <model>/<task>.json "
                                f"files written by `compeval run`{left_out_note(self.unreadable)}")
        labels = model_labels([r for _, r in loaded])
        self.entries = [Entry(path=p, result=r, model=labels[str(r.model.get("id"))], task=p.stem)
                        for p, r in loaded]
        self.models = sorted({e.model for e in self.entries}, key=str.lower)

    def suite(self, suite: str) -> list[Entry]:
        return [e for e in self.entries if e.suite == suite]

    def tasks(self, suite: str) -> list[str]:
        return sorted({e.task for e in self.suite(suite)})

    def get(self, model: str, task: str) -> Entry | None:
        for e in self.entries:
            if e.model == model and e.task == task:
                return e
        return None

    def by_name(self, task_name: str) -> list[Entry]:
        """Entries of one task (any options), in model order."""
        found = [e for e in self.entries if e.task_name == task_name]
        return sorted(found, key=lambda e: (self.models.index(e.model), e.task))

    def first(self, model: str, task_name: str) -> Entry | None:
        """The model's result for a task name, preferring the default options (slug == name)."""
        found = [e for e in self.entries if e.model == model and e.task_name == task_name]
        found.sort(key=lambda e: (e.task != task_name, e.task))
        return found[0] if found else None

    def firsts(self, task_name: str) -> list[Entry]:
        """``first`` for every model that has the task, in model order (one entry per model)."""
        return [e for e in (self.first(m, task_name) for m in self.models) if e is not None]

    def published(self, task_name: str, subset: str | None = None, metric: str | None = None) -> list[PublishedScore]:
        """The published figures of a task (optionally of one subset and metric) as its results carry them."""
        seen: dict[tuple[str, str, str], PublishedScore] = {}
        for e in self.by_name(task_name):
            for p in e.info.published:
                seen.setdefault((p.model, p.subset, p.metric), p)
        return [p for p in seen.values() if (subset is None or p.subset == subset)
                and (metric is None or p.metric == metric)]

    def published_value(self, model: str, task_name: str, subset: str, metric: str) -> PublishedScore | None:
        return next((p for p in self.published(task_name, subset, metric) if p.model == model), None)

    def layout(self, entries: list[Entry], order: Sequence[str]) -> tuple[list[str], list[str]]:
        """(task names, models) present in ``entries``: tasks in the suite's ``order`` then any others
        alphabetically, models in the index's order."""
        names = {e.task_name for e in entries}
        tasks = [t for t in order if t in names] + sorted(names - set(order))
        models = [m for m in self.models if any(e.model == m for e in entries)]
        return tasks, models

    def environments(self) -> list[dict[str, str]]:
        seen: list[dict[str, str]] = []
        for e in self.entries:
            if e.result.environment not in seen:
                seen.append(e.result.environment)
        return seen


def finite(x) -> bool:
    return x is not None and bool(np.isfinite(x))
