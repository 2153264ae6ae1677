"""Where compeval may write: the one output guard every route passes (the CLI's commands, ``report
--leaderboard`` and ``--mteb-results``, and the Python API: ``run``, ``build_report``, ``build_leaderboard``,
``export_mteb``), checked before any work, one line when refused.

- never inside the data folder (``--data-dir``, ``$COMPEVAL_DATA_DIR`` or the download cache): a report or
  a result there would sit among pinned, hashed files; nor the embedding cache (``check_cache``);
- never inside a model's results folder (``RESULTS/<model id>/``), and an export or figures folder never
  *is* a results folder: results are written by ``compeval run`` only, one file per job, and a report or
  an export there would overwrite one or be read back as a damaged result;
- never onto a result, a predictions file or an embedding-cache file wherever it lies (a report or an export
  replaces no file compeval reads back);
- never an empty path or the current folder given without a name (``-o ""`` or ``-o .``), which would mix
  model folders with whatever the current folder holds;
- a report path that is a folder is refused (the report is one file).
"""
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
    if not folder.is_dir():
        return False
    for file in folder.glob("*.json"):
        try:
            with open(file, "rb") as f:
                head = f.read(4096)
            if b'"schema_version"' in head and b'"model"' in head:
                json.loads(file.read_text(encoding="utf-8"))
                return True
        except (OSError, ValueError):
            continue
    return False


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
    """The data folders the results in ``results`` were computed from (each data set's recorded location and
    the folder holding it): a report or export of them must not write there either, whatever the current
    ``$COMPEVAL_DATA_DIR`` says."""
    folders: set[Path] = set()
    for file in Path(results).glob("*/*.json"):
        try:
            with open(file, "rb") as f:
                if b'"schema_version"' not in f.read(4096):
                    continue
            record = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for prov in record.get("data") or () if isinstance(record, dict) else ():
            location = prov.get("location") if isinstance(prov, dict) else None
            if isinstance(location, str) and location.strip() and Path(location).is_absolute():
                folders.add(Path(location))
                folders.add(Path(location).parent)
    return sorted(folders)


def check_cache(cache_dir: Path | str | None, *, data_dir: Path | str | None = None, what: str = "cache_dir"
                ) -> None:
    """Refuse an embedding cache folder (``--cache-dir``, ``$COMPEVAL_CACHE_DIR``) inside the data folder:
    its SQLite files would sit among pinned, hashed data files. None: no cache on disk."""
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
    """Refuse ``path`` (``what``: e.g. ``--output-dir``) where compeval must not write (module docstring).

    ``results`` is the results folder a report or export reads; ``folder`` says whether ``path`` names a
    folder (results, figures, export) or one file (the report)."""
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
