"""``compeval verify DIR``: check every result of a folder against what produced it, without recomputing.

For each ``<model>/<task>.json``: its checksum and schema, that it sits in its model's folder, that its
predictions file has the recorded SHA-256, that every data file it read (registry files under the data
folder, a file named by a task option) still has the recorded hash, that the packages which change numbers
have the recorded versions, and that the model's embedding cache file (when there is one) belongs to that
model and holds only rows whose checksum holds. Nothing is written. Exit 0 when everything holds, 1 when
something does not (each listed), 2 when the folder holds no result at all.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CompevalError


@dataclass
class Finding:
    path: Path
    problems: list[str] = field(default_factory=list)


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


def verify_folder(directory: Path, *, data_dir: Path | None = None, cache_dir: Path | None = None
                  ) -> tuple[list[Finding], int]:
    """(one finding per result file that does not hold, number of result files checked)."""
    from ..data.registry import DataContext
    from ..results.store import ResultStore
    from ..runner.reuse import data_changes, environment_changes, seed_rule_changes

    directory = Path(directory)
    if not directory.is_dir():
        raise CompevalError(f"results folder {directory} does not exist" if not directory.exists()
                            else f"{directory} is a file; give a results folder written by `compeval run`")
    store = ResultStore(directory)
    try:
        data = DataContext(data_dir, download=False)
    except CompevalError:
        data = None
    findings: list[Finding] = []
    checked = 0
    for path, result in store.iter_results():
        checked += 1
        problems = []
        problem = store.problem(path)
        if problem is not None:
            problems.append(problem)
        problems += data_changes(result, data)
        problems += [f"package {change}" for change in environment_changes(result)]
        problems += seed_rule_changes(result)
        problems += cache_problems(cache_dir, str(result.model.get("id")))
        if problems:
            findings.append(Finding(path, problems))
    for path, reason in store.unreadable:
        checked += 1
        findings.append(Finding(path, [reason]))
    return findings, checked


def verify(directory: Path, data_dir: Path | None, cache_dir: Path | None, no_cache: bool, console, out) -> int:
    """The command: print what does not hold; return the exit status."""
    from rich.markup import escape

    from ..cache import default_cache_dir

    cache = None if no_cache else (cache_dir or default_cache_dir())
    findings, checked = verify_folder(directory, data_dir=data_dir, cache_dir=cache)
    if checked == 0:
        raise CompevalError(f"results folder {directory} holds no results: expected <model>/<task>.json files "
                            "written by `compeval run`")
    for f in findings:
        out.print(f"✗ {escape(str(f.path))}", highlight=False, soft_wrap=True)
        for p in f.problems:
            out.print(f"    {escape(p)}", highlight=False, soft_wrap=True)
    held = checked - len(findings)
    console.print(f"verify: {checked} result(s) checked, {held} hold, {len(findings)} do not"
                  + ("" if not findings else " (a re-run recomputes them)"), highlight=False, soft_wrap=True)
    return 1 if findings else 0
