"""Where the commands may write: checked before any work, one line when refused.

- never inside the data folder (``--data-dir``, ``$COMPEVAL_DATA_DIR`` or the download cache): a report or
  a result there would sit among pinned, hashed files;
- never inside a model's results folder (``RESULTS/<model id>/``), and an export or figures folder never
  *is* a results folder: results are written by ``compeval run`` only, one file per job, and a report or
  an export there would overwrite one or be read back as a damaged result;
- never the current folder given without a name (``-o ""`` or ``-o .``) for a run's results, which would
  mix model folders with whatever the current folder holds;
- a report path that is a folder is refused (the report is one file).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import CompevalError


class OutputPathError(CompevalError):
    """An output path that would write where compeval must not."""


def data_folder(data_dir: Path | None) -> Path:
    """The data folder a command would read: ``--data-dir``, else ``$COMPEVAL_DATA_DIR``, else the cache."""
    if data_dir is not None:
        return Path(data_dir)
    if os.environ.get("COMPEVAL_DATA_DIR"):
        return Path(os.environ["COMPEVAL_DATA_DIR"])
    from ..data.registry import default_data_cache

    return default_data_cache()


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


def check_output(path: Path, what: str, *, data_dir: Path | None = None, results: Path | None = None,
                 folder: bool = True) -> None:
    """Refuse ``path`` (``what``: e.g. ``--output-dir``) where compeval must not write (module docstring).

    ``results`` is the results folder a report or export reads; ``folder`` says whether ``path`` names a
    folder (results, figures, export) or one file (the report)."""
    text = str(path)
    if text.strip() in ("", "."):
        raise OutputPathError(f"{what} {text!r}: give a folder or file name; writing into the current folder "
                              "without a name is refused")
    data = data_folder(data_dir)
    if _inside(path, data):
        raise OutputPathError(f"{what} {path} is inside the data folder {data}; write results and reports "
                              "elsewhere")
    owner = _owner(path if folder else path.parent)
    if owner is not None:
        raise OutputPathError(f"{what} {path} is inside the model results folder {owner}; only `compeval run` "
                              "writes there")
    if results is not None and folder and _real(path) == _real(results):
        raise OutputPathError(f"{what} {path} is the results folder it reads; give another folder")
    if not folder and path.is_dir():
        raise OutputPathError(f"{what} {path} is a folder; give the file to write, e.g. {path / 'report.html'}")
