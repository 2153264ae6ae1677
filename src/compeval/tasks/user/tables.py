"""A user's table (CSV, TSV, JSON Lines; a Hugging Face dataset in ``hub.py``) as a ``Table``: columns, rows,
the line of each row (for one-line errors) and the content digest the task's id holds. Files are decoded
by ``compeval.textfile``; nothing is ever written next to the user's data.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import textfile
from ...errors import DataError, MalformedDataError, SpecError

#: File kinds by suffix (a trailing ``.gz`` is read compressed): the delimiter, or "jsonl".
FORMATS = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".jsonl": "jsonl", ".ndjson": "jsonl"}
HF_PREFIX = "hf-dataset:"


@dataclass
class Table:
    """A user's rows. ``where`` names the source in errors (a path, or ``hf-dataset:ORG/NAME@REV[split]``);
    ``lines[i]`` is the line (file) or row number + 1 (dataset) of ``rows[i]``."""

    where: str
    stem: str  # default task name: the file's name without suffixes, or the dataset's NAME
    columns: list[str]
    rows: list[dict[str, Any]]
    lines: list[int]
    digest: str  # SHA-256 of the file's bytes, or of the dataset's rows as canonical JSON
    record: dict[str, Any] = field(default_factory=dict)  # what results record of the source (counts)

    def column(self, role: str, name: str) -> list[Any]:
        """The values of column ``name`` (asked for as ``role=``); a missing column names the file and its columns."""
        if name not in self.columns:
            shown = ", ".join(repr(c) for c in self.columns[:20]) or "none"
            raise MalformedDataError(self.where, 1, f"column {name!r} (given as {role}=) is not in the file; its "
                                                    f"columns are {shown}")
        return [row.get(name) for row in self.rows]

    def bad(self, i: int, column: str, reason: str) -> MalformedDataError:
        """The one-line error of row ``i`` in ``column``."""
        return MalformedDataError(self.where, self.lines[i], f"column {column!r}: {reason}")


def read_file(source: str, base_dir: Path | None = None, split: str | None = None) -> Table:
    """A CSV, TSV or JSON Lines file (relative to ``base_dir`` when given)."""
    if split is not None:
        raise SpecError(f"split={split!r} applies to a Hugging Face dataset (hf-dataset:ORG/NAME@REV), not to "
                        f"the file {source}")
    path = Path(source).expanduser()
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    suffix = "".join(path.suffixes[-2:-1]) if path.suffix == ".gz" else path.suffix
    kind = FORMATS.get(suffix.lower())
    if kind is None:
        raise SpecError(f"{source}: give a .csv, .tsv or .jsonl file (optionally .gz), or "
                        f"{HF_PREFIX}ORG/NAME@REVISION")
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    payload = textfile.read_bytes(path)
    text = textfile.decode(payload, path)
    stem = path.name.split(".")[0] or "data"
    digest = hashlib.sha256(payload).hexdigest()
    # The file's own bytes (what reuse re-hashes); the same as the content digest unless it is gzipped.
    file_digest = digest if path.suffix != ".gz" else hashlib.sha256(path.read_bytes()).hexdigest()
    record = {"data_file": str(path.resolve()), "data_sha256": file_digest}
    columns, rows, lines = (_jsonl(text, path) if kind == "jsonl" else _delimited(text, path, kind))
    if not rows:
        raise MalformedDataError(path, 1, "no rows (the file holds no data)")
    return Table(str(path), stem, columns, rows, lines, digest, record)


def _delimited(text: str, path: Path, delimiter: str) -> tuple[list[str], list[dict], list[int]]:
    """A header line, then one row per record (quoted fields may span lines; the record's first line is kept)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise MalformedDataError(path, 1, "the file is empty; the first line must name the columns")
        header = [h.strip() for h in header]
        for k, name in enumerate(header):
            if not name:
                raise MalformedDataError(path, 1, f"column {k + 1} of the header has no name")
            if name in header[:k]:
                raise MalformedDataError(path, 1, f"column {name!r} is named twice in the header")
        rows, lines = [], []
        start = reader.line_num + 1
        for fields in reader:
            line = start
            start = reader.line_num + 1
            if not fields or all(not f.strip() for f in fields):
                continue
            if len(fields) != len(header):
                raise MalformedDataError(path, line, f"{len(fields)} fields where the header names {len(header)}")
            rows.append(dict(zip(header, fields)))
            lines.append(line)
    except csv.Error as exc:
        raise MalformedDataError(path, reader.line_num, f"not valid {'TSV' if delimiter == chr(9) else 'CSV'}: "
                                                        f"{exc}") from None
    return header, rows, lines


def _jsonl(text: str, path: Path) -> tuple[list[str], list[dict], list[int]]:
    """One JSON object per line (``textfile.json_line``: a key given twice is an error); the columns are the first
    object's keys."""
    columns: list[str] | None = None
    rows, lines = [], []
    for line_no, line in enumerate(textfile.split_lines(text), 1):
        if not line.strip():
            continue
        obj = textfile.json_line(line, path, line_no)
        if not isinstance(obj, dict):
            raise MalformedDataError(path, line_no, f"expected a JSON object, got {type(obj).__name__}")
        if columns is None:
            columns = list(obj)
        rows.append(obj)
        lines.append(line_no)
    return columns or [], rows, lines


def canonical_digest(columns: list[str], rows: list[dict[str, Any]]) -> str:
    """SHA-256 of rows as canonical JSON (sorted keys): the content digest of data that is not one file."""
    h = hashlib.sha256(json.dumps(columns).encode())
    for row in rows:
        h.update(json.dumps(row, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()
