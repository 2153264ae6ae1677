"""``compeval tasks --path DIR``: the task files of a folder, each read and checked as a run would."""
from __future__ import annotations

from pathlib import Path

from .declare import declaration_files, from_file


def declared_rows(folder: Path | str) -> list[dict]:
    """One row per task file (``compeval tasks`` columns plus the file, kind and id); a bad file is an error."""
    rows = []
    for path in declaration_files(folder):
        task = from_file(path)
        rows.append({"name": task.name, "suite": task.metadata.suite, "data": task.source_record["source"],
                     "description": f"{task.kind}: {task.metadata.description}", "local": True,
                     "file": str(path), "kind": task.kind, "id": task.slug, "reference": task.metadata.reference})
    if not rows:
        from ...errors import SpecError

        raise SpecError(f"--path {folder}: no task files (*.toml) there")
    return rows
