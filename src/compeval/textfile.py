"""Every reader of a user's text file decodes through here, so the same bytes read the same way: UTF-8 only,
a leading byte-order mark stripped (Windows editors write one), ``.gz`` read compressed. A line ends at ``\n``
only: JSON and TSV text may hold U+2028, U+0085 or a form feed, which ``str.splitlines`` would split at.
A key met twice is an error naming both lines (``first_seen``, ``json_line``), never last-one-wins."""
from __future__ import annotations

import gzip
import io
import json
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from .errors import MalformedDataError

BOM = "\ufeff"


@contextmanager
def _one_line_errors(path: Path):
    """A file that cannot be opened or decompressed as one line naming it (line 1: the file as a whole)."""
    try:
        yield
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise MalformedDataError(path, 1, f"not a readable gzip file ({exc}); is the .gz name wrong?") from None
    except IsADirectoryError:
        raise MalformedDataError(path, 1, "is a folder, not a file") from None
    except OSError as exc:
        raise MalformedDataError(path, 1, f"cannot be read: {exc.strerror or exc}") from None


def read_bytes(path: Path | str) -> bytes:
    """The file's bytes, decompressed when its name ends in ``.gz``."""
    path = Path(path)
    with _one_line_errors(path):
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as f:
                return f.read()
        return path.read_bytes()


def decode(payload: bytes, path: Path | str) -> str:
    """UTF-8 text without a leading byte-order mark; other bytes name their line."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, payload.count(b"\n", 0, exc.start) + 1, payload[exc.start]) from None
    return text[1:] if text.startswith(BOM) else text


def _not_utf8(path: Path | str, line: int, byte: int) -> MalformedDataError:
    return MalformedDataError(path, line, f"not UTF-8 text (byte 0x{byte:02x}); save the file as UTF-8")


def read_text(path: Path | str) -> str:
    return decode(read_bytes(path), path)


def open_text(path: Path | str, newline: str | None = None) -> io.StringIO:
    """The file as a text stream, decoded as ``read_text`` does; ``newline=""`` keeps line ends (for
    ``csv``). For a task's data files; a vectors file of gigabytes is read with ``lines``."""
    return io.StringIO(read_text(path), newline=newline)


def lines(path: Path | str) -> Iterator[tuple[int, str]]:
    """(line number from 1, line without its end), read as a stream so a huge vectors file is never held."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with _one_line_errors(path):
        with opener(path, "rb") as f:
            for i, raw in enumerate(f, 1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise _not_utf8(path, i, raw[exc.start]) from None
                if i == 1 and line.startswith(BOM):
                    line = line[1:]
                yield i, line.rstrip("\r\n")


def first_seen(seen: dict[str, int], key: str, line_no: int, path: Path | str, what: str = "key") -> None:
    """Record ``key`` at ``line_no``; a key already recorded is an error naming both lines."""
    before = seen.setdefault(key, line_no)
    if before != line_no:
        shown = key if len(key) <= 60 else key[:60] + "…"
        raise MalformedDataError(path, line_no, f"duplicate {what} {shown!r}: also on line {before}; "
                                                "keep one of them")


def split_lines(text: str) -> list[str]:
    """``text``'s lines as ``lines`` reads a file's: split at ``\n`` only, a trailing ``\r`` dropped."""
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


class _DuplicateKey(Exception):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, int] = {}
    for k, (key, _) in enumerate(pairs):
        if seen.setdefault(key, k) != k:
            raise _DuplicateKey(key)
    return dict(pairs)


def json_line(line: str, path: Path | str, line_no: int) -> Any:
    """One JSON Lines value; invalid JSON, or a key given twice in an object at any depth (Python's parser
    would keep the last silently), is an error naming the line."""
    try:
        return json.loads(line, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        key = str(exc.args[0])
        shown = key if len(key) <= 60 else key[:60] + "…"
        raise MalformedDataError(path, line_no, f"key {shown!r} is given twice in one object; keep one") from None
    except json.JSONDecodeError as exc:
        raise MalformedDataError(path, line_no, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise MalformedDataError(path, line_no, "not valid JSON (nested too deeply)") from None
