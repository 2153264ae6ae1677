"""``compeval verify DIR``: check every result of a folder against what produced it, and recompute every
score that can be recomputed from its predictions, without running a model.

For each ``<model>/<task>.json``: its checksum and schema (a result without a checksum, or whose predictions
file has no recorded SHA-256, is *unverified*), that it sits in its model's folder and its task's file,
that its predictions file has the recorded SHA-256, that every data file it read (registry files under the
data folder, a file named by a task option) still has the recorded hash, that the packages which change
numbers have the recorded versions, and that the model's embedding cache file (when there is one) belongs
to that model and holds only rows whose checksum holds. Then, for a task that declares how
(``Task.score_predictions``), its scores are recomputed from the predictions and the data and compared with
the stored ones within ``results.compare.FLOAT_TOLERANCE``: a checksum and a hash can be rewritten after an
edit, the predictions and the data cannot lie about a recomputed score. The output says which results were
recomputed and which were only checked, and why. Nothing is written. Exit 0 when everything holds, 1 when
something does not (each listed), 2 when the folder holds no result at all.
"""
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
    and compare them with the stored ones (value, interval and n, within ``FLOAT_TOLERANCE``)."""
    import pandas as pd

    from ..results.compare import FLOAT_TOLERANCE, same
    from ..tasks.registry import TASKS, discover

    discover()
    cls = TASKS.get(result.task.name)
    if cls is None:
        return Recomputed(why=f"{result.task.name}: not a registered task (a user's data task or one this "
                              "compeval no longer has), so its scores are only checked")
    if not cls.recomputes_scores():
        return Recomputed(why=f"{result.task.name}: {cls.not_recomputed}")
    if not result.predictions_file:
        return Recomputed(problems=["its scores cannot be recomputed: it has no predictions file"])
    try:
        task = cls(**result.task.params)
        if data is None:
            raise CompevalError("no data folder")
        task.load(data)
        predictions = pd.read_json(path.with_name(result.predictions_file), lines=True, dtype=False)
        scores = task.score_predictions(predictions, seed=result.seed)
    except (CompevalError, ValueError, KeyError, OSError) as exc:
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
    """The data folder the run read (``DataProvenance.location`` less the data set's own folder), so that
    ``verify`` without ``--data-dir`` reads the data the way the run did; ``default`` (the cache) when the run
    read the cache, recorded no location, or that folder is gone."""
    from ..data.registry import DataContext, get_source

    for prov in result.data:
        if not prov.location:
            continue
        try:
            sub = Path(get_source(prov.source).folder or prov.source)
        except CompevalError:
            continue
        location = Path(prov.location)
        base = location.parents[len(sub.parts) - 1]
        if default is not None and base == default.cache_dir or not base.is_dir():
            continue
        return DataContext(base, download=False, offline_reason=VERIFY_OFFLINE)
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
            problems += data_changes(result, result_data)
            problems += [f"package {change}" for change in environment_changes(result)]
            problems += seed_rule_changes(result)
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
    checked_only = sum(1 for d in done.values() if not d.metrics and d.why)  # the others are listed with ✗
    if checked_only:
        console.print(f"only checked (checksum, predictions hash, data, versions; not recomputed): {checked_only} "
                      f"result(s): {'; '.join(only)}", highlight=False, soft_wrap=True)
    held = checked - len(findings)
    console.print(f"verify: {checked} result(s) checked, {held} hold, {len(findings)} do not"
                  + ("" if not findings else " (a re-run recomputes them)"), highlight=False, soft_wrap=True)
    return 1 if findings else 0
