"""Results on disk: ``OUTPUT/<model slug>/<task slug>.json`` plus ``….predictions.jsonl`` beside it.

Writes are atomic (temporary file + rename), so an interrupted run never leaves a half-written
result, and a re-run skips every result that already exists (unless told to overwrite).
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Iterator

import pandas as pd

from ..errors import CompevalError
from .schema import SCHEMA_VERSION, TaskResult


def atomic_write_bytes(path: Path, payload: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class ResultStore:
    def __init__(self, root: Path | str):
        self.root = Path(root)

    def path(self, model_slug: str, task_slug: str) -> Path:
        return self.root / model_slug / f"{task_slug}.json"

    def exists(self, model_slug: str, task_slug: str) -> bool:
        return self.path(model_slug, task_slug).is_file()

    def save(self, result: TaskResult, model_slug: str, task_slug: str,
             predictions: pd.DataFrame | None = None) -> Path:
        path = self.path(model_slug, task_slug)
        if predictions is not None:
            pred_path = path.with_name(f"{task_slug}.predictions.jsonl")
            # 15 digits (pandas' maximum; the default 10 turns float noise into ties that move a Spearman)
            payload = predictions.to_json(orient="records", lines=True, force_ascii=False,
                                          double_precision=15).encode()
            atomic_write_bytes(pred_path, payload)
            result.predictions_file = pred_path.name
            result.predictions_sha256 = hashlib.sha256(payload).hexdigest()
        # The result is written last: its presence means the job is complete.
        atomic_write_bytes(path, result.model_dump_json(indent=2).encode())
        return path

    def load(self, path: Path) -> TaskResult:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise CompevalError(f"{path} is not valid JSON ({exc}); delete it and re-run that job") from None
        version = str(data.get("schema_version", ""))
        if version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
            raise CompevalError(f"{path} uses results schema {version!r}; this compeval reads {SCHEMA_VERSION}")
        return TaskResult.model_validate(data)

    def predictions(self, path: Path) -> pd.DataFrame:
        result = self.load(path)
        if not result.predictions_file:
            return pd.DataFrame()
        return pd.read_json(Path(path).with_name(result.predictions_file), lines=True)

    def iter_results(self) -> Iterator[tuple[Path, TaskResult]]:
        if not self.root.is_dir():
            raise CompevalError(f"results folder {self.root} does not exist")
        for path in sorted(self.root.glob("*/*.json")):
            yield path, self.load(path)


ROW_COLUMNS = ["model", "task", "subset", "metric", "value", "ci_low", "ci_high", "n"]


def result_rows(result: TaskResult) -> list[dict]:
    model = result.model.get("display") or result.model.get("name")
    return [
        {"model": model, "task": result.task.name, "subset": s.subset, "metric": s.metric, "value": s.value,
         "ci_low": s.ci_low, "ci_high": s.ci_high, "n": s.n}
        for s in result.scores
    ]


def results_frame(root: Path | str) -> pd.DataFrame:
    """Every score in a results folder as one tidy DataFrame (the Python face of ``compeval results``)."""
    rows = [row for _, r in ResultStore(root).iter_results() for row in result_rows(r)]
    return pd.DataFrame(rows, columns=ROW_COLUMNS)
