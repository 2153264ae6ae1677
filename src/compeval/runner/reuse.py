"""Whether a stored result still stands for what a run would compute now: seed and seed rule, every data
file the task read and ``NUMERIC_PACKAGES``' versions. ``compeval verify`` runs the same checks.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..data.registry import DataContext, sha256_file
from ..errors import CompevalError
from ..results.schema import TaskResult
from ..seeds import SEED_RULE
from .environment import NUMERIC_PACKAGES, environment

#: Where ``--reuse-stale`` records each stale result it kept (one JSON object per line, in OUTPUT).
STALE_LOG = "stale-reuse.jsonl"


def data_changes(result: TaskResult, data: DataContext | None, read: dict[str, Any] | None = None) -> list[str]:
    """What no longer holds of the data a result was computed from (empty: nothing changed). ``read``: the
    ``data_file`` / ``data_sha256`` a task of this run read when it was built (not hashed again)."""
    changes: list[str] = []
    for prov in result.data:
        for rel, digest in sorted(prov.files.items()):
            try:
                local = data.root(prov.source) / rel if data is not None else None
            except CompevalError as exc:  # a data set this compeval no longer knows
                changes.append(f"data set {prov.source!r}: {exc}")
                continue
            if local is None or not local.is_file():
                changes.append(f"data file {prov.source}/{rel} is not at {local}")
                continue
            now = data._digest(local)
            if now != digest:
                changes.append(f"data file {local} has SHA-256 {now[:12]}…, the result was computed from "
                               f"{digest[:12]}…")
    user_file, user_digest = result.counts.get("data_file"), result.counts.get("data_sha256")
    if isinstance(user_file, str) and isinstance(user_digest, str):
        path = Path(user_file)
        known = read.get("data_sha256") if read and read.get("data_file") == user_file else None
        if known is None and not path.is_file():
            changes.append(f"input file {path} no longer exists")
        else:
            now = known or sha256_file(path)
            if now != user_digest:
                changes.append(f"input file {path} has SHA-256 {now[:12]}…, the result was computed from "
                               f"{user_digest[:12]}…")
    texts, abstracts = result.counts.get("texts"), result.counts.get("abstracts_sha256")
    if isinstance(texts, str) and isinstance(abstracts, dict):  # invariance-qa,format=usp: the abstracts read
        for aid, digest in sorted(abstracts.items()):
            path = Path(texts) / f"{aid}.txt" if (Path(texts) / f"{aid}.txt").is_file() else Path(texts) / aid
            if not path.is_file() or sha256_file(path) != digest:
                changes.append(f"abstract {path} changed or is gone since the result was computed")
                break
    return changes


def environment_changes(result: TaskResult) -> list[str]:
    """Packages that change numbers whose installed version differs from the one the result recorded."""
    now = environment()
    return [f"{name} {result.environment[name]} → {now.get(name, 'not installed')}"
            for name in NUMERIC_PACKAGES
            if name in result.environment and result.environment[name] != now.get(name)]


def seed_rule_changes(result: TaskResult) -> list[str]:
    """The seed rule, if the result's random streams were derived by another (``compeval.seeds.SEED_RULE``;
    a result without one predates it): the same seed, other numbers."""
    if result.seed_rule == SEED_RULE:
        return []
    return [f"seed rule {result.seed_rule or 0} → {SEED_RULE} (random streams derived differently)"]


def what_changed(result: TaskResult, *, seed: int | None, data: DataContext | None,
                 read: dict[str, Any] | None = None) -> list[str]:
    """Everything that differs between how ``result`` was computed and how this run would compute it."""
    changes = [] if seed is None or result.seed == seed else [f"seed {result.seed} → {seed}"]
    changes += seed_rule_changes(result)
    changes += data_changes(result, data, read)
    changes += environment_changes(result)
    return changes


def record_stale_reuse(output_dir: Path, path: Path, changes: list[str]) -> None:
    """Append one line to ``OUTPUT/stale-reuse.jsonl``: which result was kept although what changed."""
    entry = {"at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "result": str(path),
             "changed": changes}
    Path(output_dir).mkdir(parents=True, exist_ok=True)
    with open(Path(output_dir) / STALE_LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry, ensure_ascii=False) + "\n")


def stored_result(store: Any, folder: str, config: Any, task: Any, warnings: list[str], *,
                  ctx: Any = None, data: DataContext | None = None) -> Path | None:
    """An intact result of exactly this configuration and task with unchanged inputs, else None and one warning;
    ``ctx.reuse_stale`` keeps a stale one (logged in ``OUTPUT/stale-reuse.jsonl``). Pre-2.0 folders count by id."""
    path = store.path(folder, task.slug)
    problem = store.problem(path, model_id=config.id, task=task)
    if problem == "missing":
        legacy = store.legacy_path(config.slug, task.slug)
        if legacy == path or store.problem(legacy, model_id=config.id, task=task) is not None:
            return None
        path, problem = legacy, None
    if problem is not None:
        warnings.append(f"{path}: {problem}; recomputing it")
        return None
    if ctx is None:
        return path
    changes = what_changed(store.load(path), seed=ctx.seed, data=data, read=getattr(task, "source_record", None))
    if not changes:
        return path
    if ctx.reuse_stale:
        warnings.append(f"{path}: kept by --reuse-stale although {'; '.join(changes)} (recorded in "
                        f"{STALE_LOG})")
        record_stale_reuse(ctx.output_dir, path, changes)
        return path
    warnings.append(f"{path}: recomputing it: {'; '.join(changes)}")
    return None


def stored_identities(output_dir: Path) -> dict[tuple[str, str], set[str]]:
    """(family, model folder or shown name) → the model ids the results folder holds results of, from one
    result file per model folder: what ``superseded`` compares a model about to be computed with."""
    found: dict[tuple[str, str], set[str]] = {}
    for folder in sorted(p for p in Path(output_dir).iterdir() if p.is_dir()) if Path(output_dir).is_dir() else []:
        for path in sorted(folder.glob("*.json")):
            try:
                model = json.loads(path.read_text(encoding="utf-8-sig"))["model"]
                key = (str(model["family"]), str(model.get("location") or model["display"]))
                found.setdefault(key, set()).add(str(model["id"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # not a result (a damaged one is verify's and the store's to report)
            break
    return found


def superseded(config: Any, stored: dict[tuple[str, str], set[str]]) -> str | None:
    """One warning line when the results folder holds results of this model (same family, and same folder or
    shown name) under another id: its content, its options' identity or compeval's identity rule changed, so
    those results are not reused (they stay where they are) and this run computes under the new id."""
    others = stored.get((str(config.family), str(config.location or config.display)), set()) - {str(config.id)}
    if not others:
        return None
    return (f"{config.display}: the results folder holds results of this model under another identity "
            f"({', '.join(sorted(others))}): its files' content, its options or compeval's identity rule "
            f"changed since; they are not reused, and this run computes its results under {config.id}")
