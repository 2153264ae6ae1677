"""Where compeval may write, checked before any work by every route (the CLI and the Python API). Refused:
inside the data folder or as the embedding cache there (pinned, hashed files); inside a model's results folder
or onto a result, predictions or cache file (only ``compeval run`` writes those, and a report there would be
read back as a damaged result); an empty path or ``.``; a report path that is a folder."""
from __future__ import annotations

import json
import os
from pathlib import Path

from .errors import CompevalError
from .paths import default_cache_dir


class OutputPathError(CompevalError):
    """An output path that would write where compeval must not."""


def data_folder(data_dir: Path | None) -> Path:
    """The data folder a command would read: ``--data-dir``, else ``$COMPEVAL_DATA_DIR``, else the cache."""
    if data_dir is not None:
        return Path(data_dir)
    if os.environ.get("COMPEVAL_DATA_DIR"):
        return Path(os.environ["COMPEVAL_DATA_DIR"])
    return default_cache_dir() / "data"  # data.registry.default_data_cache (a lower layer cannot import it)


def _real(path: Path) -> Path:
    return Path(os.path.realpath(Path(path).expanduser()))


def _inside(path: Path, folder: Path) -> bool:
    path, folder = _real(path), _real(folder)
    return path == folder or folder in path.parents


def is_model_folder(folder: Path) -> bool:
    """True when ``folder`` directly holds a compeval result (``<task>.json`` with a schema version)."""
    return folder.is_dir() and any(_result_json(file, b'"model"') is not None for file in folder.glob("*.json"))


def _result_json(file: Path, *marks: bytes):
    """The JSON of a file whose head looks like a compeval result, else None."""
    try:
        with open(file, "rb") as f:
            head = f.read(4096)
        if b'"schema_version"' in head and all(m in head for m in marks):
            return json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    return None


def _owner(path: Path) -> Path | None:
    """The model results folder ``path`` is or lies in, if any."""
    path = _real(path)
    for folder in (path, *path.parents):
        if is_model_folder(folder):
            return folder
    return None


def _compeval_file(path: Path) -> bool:
    """True for an existing file compeval reads back: a result, a predictions file, an SQLite cache."""
    path = _real(path)
    if not path.is_file():
        return False
    if path.name.endswith((".predictions.jsonl", ".sqlite")):
        return True
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return b'"schema_version"' in head or head.startswith(b"SQLite format 3")


def recorded_data_folders(results: Path | str) -> list[Path]:
    """The data folders the results in ``results`` were computed from (and their parents),
    whatever ``$COMPEVAL_DATA_DIR`` says now."""
    folders: set[Path] = set()
    for file in Path(results).glob("*/*.json"):
        record = _result_json(file)
        for prov in record.get("data") or () if isinstance(record, dict) else ():
            location = prov.get("location") if isinstance(prov, dict) else None
            if isinstance(location, str) and location.strip() and Path(location).is_absolute():
                folders.add(Path(location))
                folders.add(Path(location).parent)
    return sorted(folders)


def check_cache(cache_dir: Path | str | None, *, data_dir: Path | str | None = None, what: str = "cache_dir"
                ) -> None:
    """Refuse an embedding cache folder inside the data folder; None: no cache on disk."""
    if cache_dir is None:
        return
    if str(cache_dir).strip() == "":
        raise OutputPathError(f"cache folder '' ({what}): give a folder name")
    data = data_folder(Path(data_dir) if data_dir is not None else None)
    if _inside(Path(cache_dir), data):
        raise OutputPathError(f"cache folder {cache_dir} ({what}) is inside the data folder {data}; keep the "
                              "cache elsewhere")


def check_output(path: Path | str, what: str, *, data_dir: Path | str | None = None,
                 results: Path | str | None = None, folder: bool = True) -> None:
    """Refuse ``path`` where compeval must not write (module docstring); ``results`` is the folder a
    report or export reads; ``folder``: whether ``path`` names a folder or one file (the report)."""
    text = str(path)
    if text.strip() in ("", "."):
        raise OutputPathError(f"{what} {text!r}: give a folder or file name; writing into the current folder "
                              "without a name is refused")
    path = Path(path)
    data = data_folder(Path(data_dir) if data_dir is not None else None)
    for folder in [data, *(recorded_data_folders(results) if results is not None else [])]:
        if _inside(path, folder):
            raise OutputPathError(f"{what} {path} is inside the data folder {folder}; write results and reports "
                                  "elsewhere")
    owner = _owner(path if folder else path.parent)
    if owner is not None:
        raise OutputPathError(f"{what} {path} is inside the model results folder {owner}; only `compeval run` "
                              "writes there")
    if not folder and _compeval_file(path):
        raise OutputPathError(f"{what} {path} is a compeval result, predictions or cache file; give another "
                              "file name")
    if results is not None and folder and _real(path) == _real(results):
        raise OutputPathError(f"{what} {path} is the results folder it reads; give another folder")
    if not folder and path.is_dir():
        raise OutputPathError(f"{what} {path} is a folder; give the file to write, e.g. {path / 'report.html'}")
