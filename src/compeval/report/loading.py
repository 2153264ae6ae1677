"""Read a results folder once for the report: every ``TaskResult`` plus lazily loaded predictions.

The report reads only the store (never the tasks), so everything it shows can be traced to a file
in the folder. Predictions are large (``modifiers-test2`` holds 240k rows per model) and only some
figures and paired tests need them, so they are read on first use with pyarrow's JSON reader
(several times faster than pandas' line reader) and kept for the rest of the build.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ..errors import CompevalError
from ..results.schema import Score, TaskResult
from ..results.store import ResultStore

#: Metrics where a lower value is better; ``None`` marks metrics with no better direction.
LOWER_IS_BETTER = {"profile_mad"}
NO_DIRECTION = {"syn_distance_macro", "syn_distance_micro", "split_half", "split_half_pearson", "kappa_linear",
                "mean_rater_sd", "type_count"}


def direction(metric: str) -> int:
    """+1 when higher is better, -1 when lower is better, 0 when neither (rank nothing)."""
    if metric in LOWER_IS_BETTER:
        return -1
    if metric in NO_DIRECTION:
        return 0
    return 1


@dataclass
class Entry:
    """One result file: a model × task (slug = the file name, which carries non-default options)."""

    path: Path
    result: TaskResult
    model: str
    task: str
    _predictions: pd.DataFrame | None = field(default=None, repr=False)

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

    def value(self, metric: str, subset: str) -> float | None:
        s = self.score(metric, subset)
        return None if s is None else s.value

    def predictions(self) -> pd.DataFrame | None:
        """The per-item predictions (None when the result has none or the file is gone)."""
        if self._predictions is None:
            name = self.result.predictions_file
            if not name:
                return None
            file = self.path.with_name(name)
            if not file.is_file():
                return None
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
        store = ResultStore(self.root)
        loaded: list[tuple[Path, TaskResult]] = list(store.iter_results())
        #: files that are not readable results (stray, damaged, another schema), with why: left out, reported
        self.unreadable: list[tuple[Path, str]] = list(store.unreadable)
        if not loaded:
            raise CompevalError(f"results folder {self.root} holds no results: expected "
                                "<model>/<task>.json files written by `compeval run`")
        labels = _model_labels(loaded)
        self.entries = [Entry(path=p, result=r, model=labels[p.parent.name], task=p.stem) for p, r in loaded]
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


def _model_labels(loaded: list[tuple[Path, TaskResult]]) -> dict[str, str]:
    """Folder name → label: the model's display name, disambiguated when two configs share one."""
    display: dict[str, str] = {}
    for path, r in loaded:
        display.setdefault(path.parent.name, str(r.model.get("display") or r.model.get("name") or path.parent.name))
    counts: dict[str, int] = {}
    for d in display.values():
        counts[d] = counts.get(d, 0) + 1
    return {folder: (d if counts[d] == 1 else f"{d} ({folder})") for folder, d in display.items()}


def finite(x) -> bool:
    return x is not None and bool(np.isfinite(x))
