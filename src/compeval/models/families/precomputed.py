"""Outputs of other tools, evaluated as models: ``precomputed:FILE`` is one score per line (a pair scorer,
in the task's item order) or text → vector lines, JSONL ``{"text": …, "vector": […]}`` or TSV (an encoder)."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Sequence

import numpy as np

from ... import textfile
from ...errors import MalformedDataError, ModelOutputError, SpecError
from ..options import KeepsConfig, ModelOptions
from ..registry import register_model


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _finite(path: Path, line: int, values: np.ndarray) -> np.ndarray:
    if values.ndim != 1 or values.size == 0 or not np.isfinite(values).all():
        raise MalformedDataError(path, line, "a vector must be a non-empty list of finite numbers")
    return values


class PrecomputedScores(KeepsConfig):
    """Pair scores read from a file, one per line in item order (order-dependent: not cached)."""

    cacheable = False

    def __init__(self, path: Path, scores: np.ndarray, *, options: ModelOptions | None = None):
        self.path, self.scores = path, scores
        self._config = (options or ModelOptions()).to_model_config(
            path.stem, family="precomputed-scores.v1", facts={"sha256": _digest(path), "n": len(scores)},
            location=str(path))

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        if len(texts_a) != len(self.scores):
            raise ModelOutputError(
                f"{self.path} holds {len(self.scores)} scores but the task has {len(texts_a)} items; "
                "a score file must list one score per item in the task's order"
            )
        return self.scores.copy()


class PrecomputedVectors(KeepsConfig):
    def __init__(self, path: Path, table: dict[str, np.ndarray], *, options: ModelOptions | None = None):
        self.path, self.table = path, table
        dims = {v.shape[0] for v in table.values()}
        if len(dims) != 1:
            raise MalformedDataError(path, 1, f"vectors have different lengths: {sorted(dims)}")
        self._config = (options or ModelOptions()).to_model_config(
            path.stem, family="precomputed-vectors.v1", facts={"sha256": _digest(path), "dim": dims.pop()},
            location=str(path))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self.table]
        if missing:
            raise ModelOutputError(
                f"{self.path} has no vector for {len(missing)} text(s), e.g. {missing[0]!r}"
            )
        if not texts:
            return np.zeros((0, int(self._config.params["dim"])), dtype=np.float32)
        return np.stack([self.table[t] for t in texts])


def read_precomputed(path: Path, options: ModelOptions | None = None):
    if path.is_dir():
        raise SpecError(f"precomputed:{path} is a folder; give the file of scores or vectors")
    if not path.is_file():
        raise SpecError(f"precomputed file {path} does not exist")
    lines = textfile.split_lines(textfile.read_text(path))
    body = [(i, ln) for i, ln in enumerate(lines, 1) if ln.strip()]
    if not body:
        raise MalformedDataError(path, 1, "file is empty")
    first = body[0][1].strip()
    seen: dict[str, int] = {}
    if first.startswith("{"):
        table = {}
        for i, ln in body:
            obj = textfile.json_line(ln, path, i)
            try:
                if not isinstance(obj, dict) or not isinstance(obj["text"], str):
                    raise TypeError("each line is an object with a string 'text'")
                vector = np.asarray(obj["vector"], dtype=np.float32)
            except (KeyError, TypeError, ValueError) as exc:
                raise MalformedDataError(path, i, f"expected {{\"text\": …, \"vector\": […]}} ({exc})") from None
            textfile.first_seen(seen, obj["text"], i, path, "text")
            table[obj["text"]] = _finite(path, i, vector)
        return PrecomputedVectors(path, table, options=options)
    if "\t" in first:
        table = {}
        for i, ln in body:
            text, _, vec = ln.partition("\t")
            textfile.first_seen(seen, text, i, path, "text")
            try:
                table[text] = np.asarray(vec.split(), dtype=np.float32)
            except ValueError:
                raise MalformedDataError(path, i, "vector part is not numbers separated by spaces") from None
            _finite(path, i, table[text])
        return PrecomputedVectors(path, table, options=options)
    scores = []
    for i, ln in body:
        try:
            scores.append(float(ln.strip()))
            if not np.isfinite(scores[-1]) and ln.strip().lower() not in ("nan",):
                raise ValueError("infinite")
        except ValueError:
            raise MalformedDataError(path, i, f"expected one number per line, got {ln.strip()[:40]!r}") from None
    return PrecomputedScores(path, np.asarray(scores, dtype=np.float64), options=options)


@register_model("precomputed", 1, "scores (one per line, item order) or text→vector file from another tool",
                ("precomputed:FILE  (.txt scores | .jsonl {text, vector} | .tsv text<TAB>vector)",))
def _precomputed(resolved, builder):
    if not resolved.arg:
        raise SpecError("precomputed: needs a file, e.g. precomputed:scores.txt")
    return read_precomputed(Path(resolved.arg).expanduser(), resolved.options)
