"""Results on disk: ``OUTPUT/<model id>/<task slug>.json`` plus ``….predictions.jsonl`` beside it. Folders are
named by configuration id (two configurations of one name get two), every component goes through
``safe_component`` and links are never followed; writes are atomic, and a result counts as present only
when complete and intact (``problem``). Folders of compeval < 2.0 (``OUTPUT/<model slug>/…``) are still read."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
from pydantic import ValidationError

from ..errors import CompevalError
from ..paths import safe_component
from .schema import SCHEMA_VERSION, TaskResult
from ..lazy import lazy_module

pd = lazy_module("pandas")


class DamagedResultError(CompevalError):
    """A result file that cannot be trusted; ``reason`` says why without the path."""

    def __init__(self, path: Path, reason: str):
        self.reason = reason
        super().__init__(f"{path}: {reason}; a re-run recomputes it")


class ResultWriteError(CompevalError):
    """A result could not be written (disk full, read-only or missing output folder…)."""


_umask_lock = threading.Lock()


def model_folder(model: Any) -> str:
    """The results folder of a model: its configuration id (``ModelConfig`` or a stored ``model`` record)."""
    model_id = model.get("id") if isinstance(model, dict) else getattr(model, "id", None)
    if not model_id:
        raise CompevalError("a result's model record has no configuration id")
    return safe_component(model_id)


def current_umask() -> int:
    """The process umask (read without changing it where the OS allows)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _umask_lock:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def atomic_write_bytes(path: Path, payload: bytes) -> None:
    """Write ``payload`` atomically, with a plain ``open``'s permissions and no temporary file left
    behind on any failure; ``OSError`` becomes a one-line ``ResultWriteError``."""
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o666 & ~current_umask())  # mkstemp makes 0600 files
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise ResultWriteError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def content_checksum(data: dict[str, Any]) -> str:
    """SHA-256 of a result's JSON data without its ``checksum`` field, keys sorted: a flipped digit in a
    score changes it, re-indenting the file does not. Results written before 1.1 have none."""
    body = {k: v for k, v in data.items() if k != "checksum"}
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def _json_params(params: dict[str, Any]) -> Any:
    return json.loads(json.dumps(params, sort_keys=True, default=str))


#: Decimal places of floats in a predictions file: pandas' maximum (its default 10 turns float noise into ties
#: that move a Spearman). A task whose scores ``compeval verify`` recomputes from its predictions scores the
#: values as written (``as_written``), so that the recomputation is exact.
PREDICTION_DIGITS = 15


def predictions_jsonl(predictions: pd.DataFrame) -> str:
    """A predictions DataFrame as the store writes it: JSON lines, floats to ``PREDICTION_DIGITS`` places."""
    return predictions.to_json(orient="records", lines=True, force_ascii=False, double_precision=PREDICTION_DIGITS)


def as_written(values: Any) -> np.ndarray:
    """Float ``values`` as a predictions file holds them once written and read back (NaN stays NaN): scores
    computed from these are the scores ``Task.score_predictions`` recomputes from the file."""
    text = pd.Series(np.asarray(values, dtype=np.float64)).to_json(orient="values", double_precision=PREDICTION_DIGITS)
    return np.array([np.nan if v is None else v for v in json.loads(text)], dtype=np.float64)


class ResultStore:
    def __init__(self, root: Path | str, task_slug: Callable[[TaskResult], str | None] | None = None):
        """``task_slug``: the file name a result's task and options would be written under, or None
        (``tasks.registry.result_slug``: this layer does not know tasks); without it only the task name is checked."""
        self.root = Path(root)
        self.task_slug = task_slug
        self.unreadable: list[tuple[Path, str]] = []  # filled by iter_results: files skipped, and why

    def path(self, folder: str, task_slug: str) -> Path:
        """Where the result of one model (its folder: ``model_folder(config)``) on one task lives."""
        return self.root / safe_component(folder) / f"{safe_component(task_slug)}.json"

    def legacy_path(self, model_slug: str, task_slug: str) -> Path:
        """Where compeval < 2.0 wrote it (``OUTPUT/<model slug>/<task slug>.json``)."""
        return self.root / model_slug / f"{task_slug}.json"

    def exists(self, folder: str, task_slug: str) -> bool:
        """True when a complete, intact result of this folder's model is on disk (see ``problem``)."""
        return self.problem(self.path(folder, task_slug)) is None

    def problem(self, path: Path, *, model_id: str | None = None, task: Any = None) -> str | None:
        """Why the result at ``path`` cannot stand for the planned job (``"missing"``: no file), or None: it
        parses and validates, holds ``model_id`` (else its folder's), ``task``'s name, options and version
        (a new version computes something else), and its predictions have the recorded SHA-256."""
        path = Path(path)
        if path.parent.is_symlink() or path.is_symlink():
            return "it lies behind a symbolic link, which compeval does not follow"
        if not path.is_file():
            return "missing"
        try:
            result = self.load(path)
        except DamagedResultError as exc:
            return exc.reason
        except (CompevalError, ValidationError, OSError, ValueError) as exc:
            return _short(exc)
        if model_id is not None and result.model.get("id") != model_id:
            return f"it holds model {result.model.get('id')!r}, not the planned {model_id!r}"
        if task is not None:
            from .schema import TaskInfo

            planned = TaskInfo(name=task.metadata.name, version="", suite="", params=task.params, main_metric="",
                               main_subset="")
            if result.task.name != planned.name or _json_params(result.task.params) != _json_params(planned.params):
                return f"it holds task {result.task.name} with other options {result.task.params}"
            if result.task.version != task.metadata.version:
                return (f"it was computed by version {result.task.version} of task {result.task.name}; "
                        f"this compeval has version {task.metadata.version}")
        return self.result_problem(path, result, folder=model_id is None)

    def result_problem(self, path: Path, result: TaskResult, *, folder: bool = True,
                       predictions: bool = True) -> str | None:
        """Why a loaded result cannot be trusted where it sits, or None: ``file_problem`` (and the exact file name
        of its options, given ``task_slug``), then ``trust_problem``."""
        where = file_problem(path, result, folder=folder)
        if where is None and self.task_slug is not None:
            slug = self.task_slug(result)
            if slug is not None and safe_component(slug) != path.stem:
                where = (f"it holds task {slug} (its recorded options), which does not belong in file "
                         f"{path.name}")
        return where or trust_problem(path, result, predictions=predictions)

    def save(self, result: TaskResult, folder: str, task_slug: str,
             predictions: pd.DataFrame | None = None) -> Path:
        path = self.path(folder, task_slug)
        if path.parent.is_symlink():
            raise ResultWriteError(f"{path.parent} is a symbolic link; compeval does not follow links inside the "
                                   "results folder (remove the link or give another --output-dir)")
        created = not path.parent.exists()
        pred_path = None
        try:
            if predictions is not None:
                pred_path = path.with_name(f"{path.stem}.predictions.jsonl")
                payload = predictions_jsonl(predictions).encode()
                atomic_write_bytes(pred_path, payload)
                result.predictions_file = pred_path.name
                result.predictions_sha256 = hashlib.sha256(payload).hexdigest()
            # The result is written last: its presence means the job is complete.
            result.checksum = None
            result.checksum = content_checksum(json.loads(result.model_dump_json()))
            atomic_write_bytes(path, result.model_dump_json(indent=2).encode())
        except BaseException:
            # No half-done job: predictions without their result, or a folder holding nothing.
            for leftover in (pred_path,):
                if leftover is not None and leftover.exists() and not path.exists():
                    leftover.unlink()
            if created:
                try:
                    path.parent.rmdir()
                except OSError:
                    pass
            raise
        return path

    def load(self, path: Path) -> TaskResult:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DamagedResultError(path, f"not valid JSON ({_short(exc)})") from None
        except OSError as exc:
            raise CompevalError(f"cannot read {path}: {exc.strerror or exc}") from None
        if not isinstance(data, dict):
            raise CompevalError(f"{path} is not a compeval result (a JSON {type(data).__name__})")
        version = str(data.get("schema_version", ""))
        if version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
            raise CompevalError(f"{path} uses results schema {version!r}; this compeval reads {SCHEMA_VERSION}")
        if data.get("checksum") is not None and data["checksum"] != content_checksum(data):
            raise DamagedResultError(path, "its content does not match its checksum (edited or damaged)")
        refuse_model_norm(path, data)
        return TaskResult.model_validate(data)

    def predictions(self, path: Path) -> pd.DataFrame:
        result = self.load(path)
        if not result.predictions_file:
            return pd.DataFrame()
        return pd.read_json(Path(path).with_name(result.predictions_file), lines=True)

    def iter_results(self, digests: dict[Path, str] | None = None) -> Iterator[tuple[Path, TaskResult]]:
        """Every readable, trusted, current result; the others go to ``unreadable`` with why (``result_problem``,
        ``stale_problem``). ``digests``: input files' SHA-256 the caller has just read (not hashed again)."""
        if not self.root.is_dir():
            raise CompevalError(f"results folder {self.root} does not exist" if not self.root.exists() else
                                f"{self.root} is a file; give the results folder written by `compeval run`")
        self.unreadable = []
        digests = dict(digests or {})
        for path in sorted(self.root.glob("*/*.json")):
            if path.parent.is_symlink() or path.is_symlink():
                self.unreadable.append((path, "behind a symbolic link, which compeval does not follow"))
                continue
            try:
                result = self.load(path)
            except (CompevalError, ValidationError, OSError, ValueError) as exc:
                self.unreadable.append((path, _short(exc)))
                continue
            problem = self.result_problem(path, result, predictions=False)  # predictions: refused where read
            if problem is not None:
                self.unreadable.append((path, f"{problem}; left out (a re-run recomputes it)"))
                continue
            stale = stale_problem(result, digests)
            if stale is not None:
                self.unreadable.append((path, stale))
                continue
            yield path, result


#: The start of the reason given for a result that is readable but cannot be trusted (``trust_problem``).
UNVERIFIED = "unverified"


def trust_problem(path: Path, result: TaskResult, *, predictions: bool = True) -> str | None:
    """Why a readable result cannot be trusted, or None: without a checksum or a recorded predictions
    SHA-256 it is *unverified* (left out, recomputed by a run). ``predictions``: check the predictions file too."""
    if result.checksum is None:
        return f"{UNVERIFIED}: it records no checksum, so an edit to it cannot be detected"
    pred = path.with_name(result.predictions_file or f"{path.stem}.predictions.jsonl")
    if pred.is_file() and not result.predictions_sha256:
        return f"{UNVERIFIED}: its predictions file {pred.name} has no recorded SHA-256"
    if not predictions:
        return None
    if result.predictions_file and not pred.is_file():
        return f"its predictions file {pred.name} is missing"
    if pred.is_file() and _sha256(pred) != result.predictions_sha256:
        return f"its predictions file {pred.name} does not have the recorded SHA-256"
    return None


def stale_problem(result: TaskResult, digests: dict[Path, str] | None = None) -> str | None:
    """Why a result no longer stands for its input, or None: the user's file it was computed from
    (``counts.data_file``) has other content now, so it must not sit beside the new content's result under one
    name. A file that is gone proves nothing (``compeval verify`` lists it). ``digests``: SHA-256s memoised."""
    file, recorded = result.counts.get("data_file"), result.counts.get("data_sha256")
    if not isinstance(file, str) or not isinstance(recorded, str) or not Path(file).is_file():
        return None
    digests = {} if digests is None else digests
    path = Path(file)
    try:
        if path not in digests:
            digests[path] = _sha256(path)
    except OSError:
        return None
    if digests[path] == recorded:
        return None
    again = ("a re-run of its declaration writes the new content's result under a new id; remove this file"
             if isinstance(result.counts.get("declaration_sha256"), str) else "a re-run recomputes it")
    return (f"stale: its input file {path} has changed since (SHA-256 {digests[path][:12]}…, computed from "
            f"{recorded[:12]}…); left out ({again})")


def file_problem(path: Path, result: TaskResult, *, folder: bool = True) -> str | None:
    """Whether the result sits in its model's folder and in a file its task could have written (the task name,
    then ``__option-value`` parts); the exact name of its options is checked by ``ResultStore(task_slug=…)``."""
    stored = result.model.get("id")
    legacy = isinstance(stored, str) and stored.rpartition("-")[0] == path.parent.name  # compeval < 2.0
    if folder and (stored is None or (model_folder(result.model) != path.parent.name and not legacy)):
        return f"it holds model {stored!r}, which does not belong in folder {path.parent.name!r}"
    name = result.task.name
    stem = path.stem
    if not (stem == safe_component(name) or stem.startswith(f"{name}__")):
        return f"it holds task {name}, which does not belong in file {path.name}"
    return None


def refuse_model_norm(path: Path, data: dict[str, Any]) -> None:
    """Refuse a result whose model (or a part) carries ``norm=``: that option normalised only where a task scored
    pairs, so the id also held raw-vector scores elsewhere; the message says how to compute it now."""
    model = data.get("model") if isinstance(data.get("model"), dict) else {}
    todo, norm = [model], None
    while todo and norm is None:
        part = todo.pop()
        params = part.get("params") if isinstance(part.get("params"), dict) else {}
        norm = params.get("norm")
        todo += [c for c in part.get("children") or () if isinstance(c, dict)]
    if norm is not None:
        task = (data.get("task") or {}).get("name", "TASK") if isinstance(data.get("task"), dict) else "TASK"
        plain = str(model.get("display") or model.get("name")).replace(f",norm={norm}", "")
        raise CompevalError(f"{path}: written by an earlier compeval with the model option norm={norm}, which is a "
                            f"task option now; not read (re-run it as -m {plain} -t {task},norm={norm}; only tasks "
                            "that compare pairs take norm)")


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _short(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return f"not a compeval result ({where}: {first.get('msg')})"
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


ROW_COLUMNS = ["model", "task", "params", "subset", "metric", "value", "ci_low", "ci_high", "n"]


def task_params_text(params: dict) -> str:
    """A task's options as ``key=value`` pairs (sorted, ``;``-separated): the run's ``--task`` suffix."""
    return "; ".join(f"{k}={v}" for k, v in sorted((params or {}).items()))


def result_rows(result: TaskResult, label: str | None = None) -> list[dict]:
    model = label or result.model.get("display") or result.model.get("name")
    params = task_params_text(result.task.params)
    return [
        {"model": model, "task": result.task.name, "params": params, "subset": s.subset, "metric": s.metric, "value": s.value,
         "ci_low": s.ci_low, "ci_high": s.ci_high, "n": s.n}
        for s in result.scores
    ]


def model_labels(results: list[TaskResult]) -> dict[str, str]:
    """Model id → label: its display name, followed by its id when two configurations share that name
    (two ``precomputed:`` files called ``s.txt`` in different folders)."""
    ids: dict[str, set[str]] = {}
    for r in results:
        display = str(r.model.get("display") or r.model.get("name"))
        ids.setdefault(display, set()).add(str(r.model.get("id")))
    out = {}
    for display, members in ids.items():
        for model_id in members:
            out[model_id] = display if len(members) == 1 else f"{display} ({model_id})"
    return out


def left_out_note(unreadable: list[tuple[Path, str]]) -> str:
    """For the line saying a folder has no result to show: how many files were left out (every result stale,
    damaged or unverified) and the first one's reason, so the user learns what to do; "" when none were."""
    if not unreadable:
        return ""
    path, reason = unreadable[0]
    return f"; {len(unreadable)} file(s) left out, e.g. {path}: {reason}"


def results_frame(root: Path | str, unreadable: list[tuple[Path, str]] | None = None,
                  task_slug: Callable[[TaskResult], str | None] | None = None) -> pd.DataFrame:
    """Every score in a results folder as one tidy DataFrame (``compeval results``); files left out go to
    ``unreadable`` with why. ``task_slug``: see ``ResultStore`` (``compeval.tasks.registry.result_slug``)."""
    store = ResultStore(root, task_slug)
    first: dict[tuple[str, str, str], Path] = {}  # without task_slug a copied result is read as well: shown once
    results = []
    for path, r in store.iter_results():
        shown = first.setdefault((str(r.model.get("id")), r.task.name, json.dumps(_json_params(r.task.params))), path)
        if shown == path:
            results.append(r)
        else:
            store.unreadable.append((path, f"it holds the model, task and options of {shown.name}, which is shown"))
    labels = model_labels(results)
    rows = [row for r in results for row in result_rows(r, labels[str(r.model.get("id"))])]
    if unreadable is not None:
        unreadable.extend(store.unreadable)
    return pd.DataFrame(rows, columns=ROW_COLUMNS)
