"""What a run left out and why (``OUTPUT/not-run.json``), so that the ranking and the report list it without
the run's scrolled-away lines. A task with a result in the folder is not listed; an empty list removes the file."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from .store import atomic_write_bytes
from .. import textfile
from ..errors import CompevalError

NOT_RUN_FILE = "not-run.json"


@dataclass(frozen=True)
class NotRun:
    """One task a run left out: its name, a short reason (the group it is counted in) and the full line."""

    task: str
    reason: str
    detail: str = ""


def write_not_run(output_dir: Path | str, entries: Iterable[NotRun]) -> Path | None:
    """Record what a run left out (atomically); remove an older record when nothing was left out."""
    path = Path(output_dir) / NOT_RUN_FILE
    items = [{"task": e.task, "reason": e.reason, "detail": e.detail} for e in entries]
    if not items:
        path.unlink(missing_ok=True)
        return None
    atomic_write_bytes(path, (json.dumps({"not_run": items}, indent=1) + "\n").encode("utf-8"))
    return path


def read_not_run(output_dir: Path | str, present: Iterable[str] = ()) -> list[NotRun]:
    """The tasks the last run left out, less those in ``present`` (task names with a result); an
    unreadable or missing record is no record."""
    path = Path(output_dir) / NOT_RUN_FILE
    try:
        items = json.loads(textfile.read_text(path))["not_run"]
        entries = [NotRun(str(i["task"]), str(i["reason"]), str(i.get("detail", ""))) for i in items]
    except (OSError, ValueError, KeyError, TypeError, CompevalError):  # textfile: a missing file is a DataError
        return []
    have = set(present)
    return [e for e in entries if e.task not in have]


def grouped(entries: Iterable[NotRun]) -> dict[str, list[str]]:
    """Reason → task names, in first-seen order."""
    out: dict[str, list[str]] = {}
    for e in entries:
        out.setdefault(e.reason, []).append(e.task)
    return out


def summary_line(entries: Iterable[NotRun]) -> str:
    """``14 task(s) not run: 13 data not on this machine (…), 1 …``; empty when nothing was left out."""
    groups = grouped(entries)
    if not groups:
        return ""
    total = sum(len(v) for v in groups.values())
    parts = [f"{len(tasks)} {reason} ({', '.join(tasks)})" for reason, tasks in groups.items()]
    return f"{total} task(s) not run: " + "; ".join(parts)
