"""A user task declared on the command line (``KIND:SOURCE[,options]``) or in a TOML file (docs/user-tasks.md).

TOML: the standard library reads it and its types are explicit (YAML reads ``no`` as a boolean)."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from ... import textfile
from ...errors import CompevalError, DataError, MalformedDataError, SpecError
from ..registry import SPEC_KINDS
from .base import DESCRIBING, UserTask

#: The suffix of a declaration file.
SUFFIX = ".toml"
TOP_KEYS = ("kind", *DESCRIBING, "source", "split", "columns", "options")


def from_file(path: Path | str) -> UserTask:
    """A TOML declaration → the task; a malformed file is one line naming it and the line."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise SpecError(f"{path}: no such task file (a .toml declaration; see docs/user-tasks.md)")
    try:
        doc = tomllib.loads(textfile.read_text(path))
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+)", str(exc))
        raise MalformedDataError(path, int(found.group(1)) if found else 1,
                                 f"not valid TOML: {re.sub(r' [(]at .*[)]$', '', str(exc))}") from None
    unknown = [k for k in doc if k not in TOP_KEYS]
    if unknown:
        raise MalformedDataError(path, _line_of(path, unknown[0]), f"unknown key {unknown[0]!r}; a task file "
                                                                   f"holds {', '.join(TOP_KEYS)}")
    for key in ("kind", "source"):
        if not isinstance(doc.get(key), str) or not doc[key].strip():
            raise MalformedDataError(path, _line_of(path, key), f"{key!r} must be given as a string")
    kind = doc["kind"]
    if kind not in SPEC_KINDS:
        raise MalformedDataError(path, _line_of(path, "kind"), f"kind {kind!r}: choose {', '.join(SPEC_KINDS)}")
    for key in ("columns", "options"):
        if not isinstance(doc.get(key, {}), dict):
            raise MalformedDataError(path, _line_of(path, key), f"{key!r} must be a table ([{key}])")
    columns, options = doc.get("columns", {}), doc.get("options", {})
    both = sorted(set(columns) & set(options))
    if both:
        raise MalformedDataError(path, _line_of(path, both[0]), f"{both[0]!r} is given under [columns] and "
                                                                "[options]; give it once")
    described = {k: doc[k] for k in DESCRIBING if k in doc}
    for k, v in (*described.items(), *columns.items()):
        if not isinstance(v, str):
            raise MalformedDataError(path, _line_of(path, k), f"{k!r} must be a string, got {v!r}")
    split = doc.get("split")
    try:
        return SPEC_KINDS[kind](doc["source"], split=split, base_dir=path.resolve().parent,
                                spec_string=str(path.resolve()), **described, **columns, **options)
    except CompevalError as exc:  # a bad option or data row: the line says which declaration is at fault
        base = next(c for c in type(exc).__mro__ if c in (SpecError, DataError, CompevalError))
        raise base(f"{path}: {exc}") from None


def _line_of(path: Path, key: str) -> int:
    """The first line that sets ``key`` (for errors after parsing, which TOML's parser does not locate)."""
    pattern = re.compile(rf"^\s*(\[\s*)?[\"']?{re.escape(key)}[\"']?\s*(=|\])")
    for line_no, line in textfile.lines(path):
        if pattern.match(line):
            return line_no
    return 1


def declaration_files(folder: Path | str) -> list[Path]:
    """The task files of a folder (``compeval tasks --path DIR``), sorted."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise SpecError(f"--path {folder}: not a folder of task files")
    return sorted(p for p in folder.iterdir() if p.suffix == SUFFIX and p.is_file())


def from_result(name: str, params: dict[str, Any], counts: dict[str, Any]) -> UserTask:
    """The task a stored user-data result was computed by, rebuilt from its kind, name, options and data
    source; its ``digest`` says whether they are still the ones recorded (``counts['declaration_sha256']``)."""
    kind = counts.get("kind")
    if kind not in SPEC_KINDS:
        raise SpecError(f"task {name}: its result records kind {kind!r}; this compeval has {', '.join(SPEC_KINDS)}")
    if isinstance(counts.get("data_file"), str):
        source = counts["data_file"]
    elif isinstance(counts.get("hf_dataset"), str):
        source = "hf-dataset:" + counts["hf_dataset"] + (f"@{counts['revision']}" if counts.get("revision") else "")
    else:
        raise SpecError(f"task {name}: its result records no data file or dataset")
    return SPEC_KINDS[kind](source, name=name, split=counts.get("split"),
                            description=str(counts.get("description", "")), citation=str(counts.get("citation", "")),
                            **params)
