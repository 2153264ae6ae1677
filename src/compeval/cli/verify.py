"""``compeval verify DIR``: check every result against what produced it, without running a model: checksum
and schema, its folder and file name, predictions SHA-256, the data files' hashes, the versions of packages
that change numbers, the model's files (``model_changes``) and its embedding cache. Then recompute the scores
of tasks that declare how (``Task.score_predictions``) and of user tasks (``user_task``) from predictions and
data, within ``results.compare.FLOAT_TOLERANCE``: a checksum can be rewritten after an edit, a recomputed
score cannot lie. Nothing is written. Exit 0 when everything holds, 1 when something does not, 2 when the
folder holds no result."""
from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CompevalError


@dataclass
class Finding:
    path: Path
    problems: list[str] = field(default_factory=list)


@dataclass
class Recomputed:
    """What ``recompute`` did for one result: the metrics it recomputed (empty: only checked, ``why``),
    and the stored scores that the recomputation contradicts."""

    metrics: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    why: str = ""


def _number(x) -> str:
    return "none" if x is None else f"{x:.6g}"


def recompute(result, path: Path, data) -> Recomputed:
    """Recompute ``result``'s scores from its predictions file and the data (``Task.score_predictions``)
    and compare them with the stored ones (value, interval and n, within ``FLOAT_TOLERANCE``). A task on a
    user's data is rebuilt from what its result records (``user_task``), registered or not."""
    import pandas as pd

    from ..results.compare import FLOAT_TOLERANCE, same
    from ..tasks.registry import TASKS, discover
    from ..tasks.user.base import SUITE as USER_SUITE

    discover()
    user = result.task.suite == USER_SUITE and isinstance(result.counts.get("declaration_sha256"), str)
    cls = None if user else TASKS.get(result.task.name)
    if cls is None and not user:
        return Recomputed(why=f"{result.task.name}: not a registered task (one this compeval no longer has), so "
                              "its scores are only checked")
    if cls is not None and not cls.recomputes_scores():
        return Recomputed(why=f"{result.task.name}: {cls.not_recomputed}")
    if not result.predictions_file:
        return Recomputed(problems=["its scores cannot be recomputed: it has no predictions file"])
    if user:
        task = user_task(result)
        if isinstance(task, Recomputed):
            return task
    try:
        if not user:
            task = cls(**result.task.params)
            if data is None:
                raise CompevalError("no data folder")
        task.load(data)  # a user task's rows are read already; this makes them its items
        predictions = pd.read_json(path.with_name(result.predictions_file), lines=True, dtype=False)
        scores = task.score_predictions(predictions, seed=result.seed)
    except (CompevalError, ValueError, KeyError, TypeError, OSError) as exc:  # hand-edited predictions
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return Recomputed(problems=[f"its scores could not be recomputed from its predictions ({first})"])
    fresh = {(s.subset, s.metric): s for s in scores}
    problems = []
    for s in result.scores:
        r = fresh.get((s.subset, s.metric))
        if r is None:
            problems.append(f"score {s.metric} on {s.subset}: not among the scores recomputed from its predictions")
            continue
        for part in ("value", "ci_low", "ci_high", "n"):
            a, b = getattr(s, part), getattr(r, part)
            if not (a is None and b is None) and (a is None or b is None or not same(float(a), float(b),
                                                                                     FLOAT_TOLERANCE)):
                problems.append(f"{s.metric} on {s.subset}: {part} recomputed from its predictions is "
                                f"{_number(b)}, the result says {_number(a)}")
    missing = sorted(set(fresh) - {(s.subset, s.metric) for s in result.scores})
    problems += [f"score {m} on {sub}: recomputed from its predictions but absent from the result"
                 for sub, m in missing]
    return Recomputed(metrics=sorted({m for _, m in fresh}), problems=problems)


def user_task(result):
    """The user task ``result`` was computed by, rebuilt from its recorded kind, options and data, or
    the reason ``recompute`` reports instead (data gone, changed or unreadable)."""
    from ..data.registry import sha256_file
    from ..tasks.user.declare import from_result

    counts, name = result.counts, result.task.name
    file = counts.get("data_file")
    if isinstance(file, str) and (not Path(file).is_file() or sha256_file(Path(file)) != counts.get("data_sha256")):
        return Recomputed(why=f"{name}: its data file is gone or changed (listed), so its scores are not recomputed")
    folder = counts.get("hf_dataset")
    if not isinstance(file, str) and isinstance(folder, str) and not counts.get("revision") \
            and not Path(folder).is_dir():
        return Recomputed(problems=[f"its dataset folder {folder} no longer exists"])
    try:
        task = from_result(name, result.task.params, counts)
    except CompevalError as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return Recomputed(problems=[f"its data cannot be read again ({first})"])
    if task.digest == counts["declaration_sha256"]:
        return task
    if result.task.version != task.metadata.version:
        return Recomputed(problems=[f"it was computed by version {result.task.version} of the {task.kind} kind; "
                                    f"this compeval has version {task.metadata.version}"])
    now, was = task.source_record.get("rows_sha256"), counts.get("rows_sha256")
    if isinstance(now, str) and isinstance(was, str) and now != was:
        return Recomputed(problems=[f"its data {task.source_record['source']} now has content digest {now[:12]}…, "
                                    f"the result was computed from {was[:12]}… ({STALE})"])
    return Recomputed(problems=[f"its declaration (options and data) now digests to {task.digest[:12]}…, the "
                                f"result records {counts['declaration_sha256'][:12]}… ({STALE})"])


#: What a re-run of the same models and tasks does with the results that do not hold.
AFTER = ("a re-run of the same models and tasks recomputes in place a result that is damaged, unverified, edited "
         "without its checksum, or computed from other data or packages; one whose checksum holds but whose "
         "recomputed scores differ is reused by a re-run: replace it with `compeval run --overwrite`; where a line "
         "says 'new id', a re-run writes a new result beside the old one")
#: What a re-run does with a result whose inputs changed in place (a user's data, a model folder): they give
#: a new id, so the run writes a new result beside it, and readers leave the old one out.
STALE = "a re-run computes a new result beside it under a new id; this one stays until removed"


def model_changes(model: dict, digests: dict[Path, str] | None = None) -> list[str]:
    """Whether the files a result's model was identified by (a folder's content digest, a weights or
    precomputed file's SHA-256, its parts') still hold that content; ``digests`` memoises."""
    import re

    from ..data.registry import sha256_file
    from ..models.hub import content_digest

    digests = {} if digests is None else digests
    problems = []
    for child in model.get("children") or []:
        if isinstance(child, dict):
            problems += model_changes(child, digests)
    params, location = model.get("params") or {}, model.get("location")
    if not isinstance(location, str) or not isinstance(params, dict):
        return problems
    path = Path(location)
    weights, sha = params.get("weights"), params.get("sha256")
    if isinstance(weights, str) and weights.startswith("sha256:") and str(model.get("name", "")).endswith(
            "@" + weights[7:15]):
        recorded, whole_folder = weights, True
    elif isinstance(weights, str) and re.fullmatch(r"sha256:[0-9a-f]{64}", weights) and not path.is_dir():
        recorded, whole_folder = weights, False
    elif isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha) and not path.is_dir():
        recorded, whole_folder = "sha256:" + sha, False
    else:
        return problems
    what = f"model {model.get('display') or model.get('name')}: {'folder' if whole_folder else 'file'} {path}"
    if not (path.is_dir() if whole_folder else path.is_file()):
        return problems + [f"{what} no longer exists, so the model it was computed by cannot be checked"]
    try:
        if path not in digests:
            digests[path] = content_digest(path) if whole_folder else "sha256:" + sha256_file(path)
    except (CompevalError, OSError) as exc:
        return problems + [f"{what} cannot be read ({exc})"]
    if digests[path] != recorded:
        problems.append(f"{what} now has content digest {digests[path][7:19]}…, the result was computed from "
                        f"{recorded[7:19]}… (changed in place: {STALE})")
    return problems


def cache_problems(cache_dir: Path | None, model_id: str) -> list[str]:
    """Whether the model's cache file (if any) is its own and intact; read-only, never repaired here."""
    from ..cache.store import pair_crc, vector_crc

    if cache_dir is None:
        return []
    path = Path(cache_dir) / "embeddings" / f"{model_id}.sqlite"
    if not path.exists():
        return []
    if not path.is_file():
        return [f"cache {path} is not a file"]
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return [f"cache {path} cannot be opened ({exc})"]
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'model_id'").fetchone()
        problems = []
        if row is None:
            problems.append(f"cache {path.name} records no model id (it cannot be tied to this model)")
        elif row[0] != model_id:
            problems.append(f"cache {path.name} holds the vectors of model {row[0]!r}, not {model_id!r}")
        bad = 0
        for text, dim, blob, crc in con.execute("SELECT text, dim, vec, crc FROM vectors"):
            if (crc is None or not isinstance(blob, bytes) or crc != vector_crc(text, blob)
                    or not isinstance(dim, int) or len(blob) != 4 * dim
                    or not np.isfinite(np.frombuffer(blob, dtype=np.float32)).all()):
                bad += 1
        for a, b, score, crc in con.execute("SELECT a, b, score, crc FROM pairs"):
            if crc is None or crc != pair_crc(a, b, score):
                bad += 1
        if bad:
            problems.append(f"cache {path.name}: {bad} row(s) without a valid checksum")
        return problems
    except sqlite3.Error as exc:
        return [f"cache {path} cannot be read ({exc})"]
    finally:
        con.close()


#: Why verify reads no download: it checks what the run read, where the run read it.
VERIFY_OFFLINE = "verify downloads nothing: pass --data-dir with the folder the run read its data from"


def recorded_data(result, default):
    """The data folder the run read (``DataProvenance.location`` less the data set's folder), else
    ``default`` (the cache); a recorded folder that is gone is named in the reason, to say what to restore."""
    from ..data.registry import DataContext, get_source

    gone = None
    for prov in result.data:
        if not prov.location:
            continue
        try:
            sub = Path(get_source(prov.source).folder or prov.source)
        except CompevalError:
            continue
        location = Path(prov.location)
        base = location.parents[len(sub.parts) - 1]
        if default is not None and base == default.cache_dir:
            continue
        if not base.is_dir():
            gone = gone or base
            continue
        return DataContext(base, download=False, offline_reason=VERIFY_OFFLINE)
    if gone is not None and default is not None:
        return DataContext(None, download=False, cache_dir=default.cache_dir,
                           offline_reason=f"verify downloads nothing; the run read its data from {gone}, which is "
                                          "no longer a folder: restore it, or pass --data-dir with the same data")
    return default


def verify_folder(directory: Path, *, data_dir: Path | None = None, cache_dir: Path | None = None,
                  recomputed: dict[Path, Recomputed] | None = None) -> tuple[list[Finding], int]:
    """(one finding per result file that does not hold, number of result files checked); ``recomputed``, when
    given, receives what ``recompute`` did for each result that passed the other checks."""
    from ..data.registry import DataContext
    from ..results.store import ResultStore
    from ..runner.reuse import data_changes, environment_changes, seed_rule_changes

    directory = Path(directory)
    if not directory.is_dir():
        raise CompevalError(f"results folder {directory} does not exist" if not directory.exists()
                            else f"{directory} is a file; give a results folder written by `compeval run`")
    from ..tasks.registry import result_slug

    store = ResultStore(directory, result_slug)
    try:
        data = DataContext(data_dir, download=False, offline_reason=VERIFY_OFFLINE)
    except CompevalError:
        data = None
    given = data_dir is not None or bool(os.environ.get("COMPEVAL_DATA_DIR"))
    findings: list[Finding] = []
    digests: dict[Path, str] = {}
    trusted = list(store.iter_results())
    loaded = dict(trusted)
    for path, _ in store.unreadable:  # left out by the store: what else no longer holds of those that load
        try:
            loaded[path] = store.load(path)
        except Exception:  # noqa: BLE001 (its reason is already the store's)
            continue
    reasons = dict(store.unreadable)
    for path in sorted({*loaded, *reasons}):
        result = loaded.get(path)
        problem = store.problem(path) if result is not None else reasons[path]
        problems = [] if problem is None else [problem]
        result_data = data if given or result is None else recorded_data(result, data)
        if result is not None:
            changes = data_changes(result, result_data)
            file = result.counts.get("data_file")
            if isinstance(result.counts.get("declaration_sha256"), str) and isinstance(file, str) \
                    and Path(file).is_file():  # a user task's id holds its data's digest
                changes = [f"{c} ({STALE})" for c in changes]
            problems += changes
            problems += [f"package {change}" for change in environment_changes(result)]
            problems += seed_rule_changes(result)
            problems += model_changes(result.model, digests)
            problems += cache_problems(cache_dir, str(result.model.get("id")))
        if result is not None and problem is None:  # its predictions are the ones it recorded: do they
            done = recompute(result, path, result_data)  # give its scores?
            problems += done.problems
            if recomputed is not None:
                recomputed[path] = done
        if problems:
            findings.append(Finding(path, problems))
    return findings, len(loaded.keys() | reasons.keys())


def verify(directory: Path, data_dir: Path | None, cache_dir: Path | None, no_cache: bool, console, out) -> int:
    """The command: print what does not hold; return the exit status."""
    from rich.markup import escape

    from ..cache import default_cache_dir

    cache = None if no_cache else (cache_dir or default_cache_dir())
    done: dict[Path, Recomputed] = {}
    findings, checked = verify_folder(directory, data_dir=data_dir, cache_dir=cache, recomputed=done)
    if checked == 0:
        raise CompevalError(f"results folder {directory} holds no results: expected <model>/<task>.json files "
                            "written by `compeval run`")
    for f in findings:
        out.print(f"✗ {escape(str(f.path))}", highlight=False, soft_wrap=True)
        for p in f.problems:
            out.print(f"    {escape(p)}", highlight=False, soft_wrap=True)
    again = [d for d in done.values() if d.metrics]
    metrics = sorted({m for d in again for m in d.metrics})
    console.print(f"recomputed from predictions: {len(again)} result(s)"
                  + (f" ({', '.join(metrics)})" if metrics else ""), highlight=False, soft_wrap=True)
    only = sorted({d.why for d in done.values() if not d.metrics and d.why})
    checked_only = sum(1 for d in done.values() if not d.metrics)
    if checked_only:
        listed = checked_only - sum(1 for d in done.values() if not d.metrics and d.why)
        whys = only + ([f"{listed} for the reason listed above"] if listed else [])
        console.print(f"only checked (checksum, predictions hash, data, versions; not recomputed): {checked_only} "
                      f"result(s): {'; '.join(whys)}", highlight=False, soft_wrap=True)
    held = checked - len(findings)
    console.print(f"verify: {checked} result(s) checked, {held} hold, {len(findings)} do not"
                  + ("" if not findings else f" ({AFTER})"), highlight=False, soft_wrap=True)
    return 1 if findings else 0
