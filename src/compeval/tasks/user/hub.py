"""A Hugging Face dataset as a user's table, through ``datasets`` (extra ``compeval[datasets]``).

``hf-dataset:ORG/NAME@REVISION`` with ``split=``: ``load_dataset`` at a required revision (a branch moves; a
commit does not), cached by the Hugging Face cache (then ``HF_DATASETS_OFFLINE=1`` works).
``hf-dataset:FOLDER``: a dataset saved with ``save_to_disk`` (``load_from_disk``), or any other folder as
a dataset repository on disk (``load_dataset(FOLDER, split=…)``). The rows' canonical-JSON digest enters
the task's id; a row's "line" in errors is its number from 1.
"""
from __future__ import annotations

from pathlib import Path

from ...errors import CompevalError, DataError, SpecError
from .tables import HF_PREFIX, Table, canonical_digest


#: Files ``save_to_disk`` writes (a Dataset's state, a DatasetDict's index): such a folder is read by load_from_disk.
SAVED_MARKERS = ("state.json", "dataset_dict.json")


def read_dataset(ref: str, split: str | None, base_dir: Path | None = None) -> Table:
    try:
        import datasets
    except ImportError:
        raise CompevalError(f"{HF_PREFIX}{ref} needs the datasets library: pip install 'compeval[datasets]'") from None
    local = Path(ref).expanduser()
    if base_dir is not None and not local.is_absolute():
        local = base_dir / local
    if local.is_dir() and not any((local / f).is_file() for f in SAVED_MARKERS):
        # a dataset repository on disk (data files, optionally a README's configs): as load_dataset reads the Hub
        where, record, stem = f"{HF_PREFIX}{local.resolve()}", {"hf_dataset": str(local.resolve())}, local.name
        if not split:
            raise SpecError(f"{where}: give split= (e.g. split=test)")
        try:
            ds = datasets.load_dataset(str(local), split=split)
        except Exception as exc:  # the library's own errors: one line naming the folder
            raise DataError(f"{where} split={split}: could not load it ({_first_line(exc)})") from None
    elif local.is_dir():
        where, record, stem = f"{HF_PREFIX}{local.resolve()}", {"hf_dataset": str(local.resolve())}, local.name
        try:
            ds = datasets.load_from_disk(str(local))
        except Exception as exc:  # the library's own errors: one line naming the folder
            raise DataError(f"{where}: not a dataset saved with save_to_disk ({_first_line(exc)})") from None
        if isinstance(ds, datasets.DatasetDict):
            if split is None or split not in ds:
                raise SpecError(f"{where}: give split= one of {', '.join(ds)}")
            ds = ds[split]
        elif split is not None:
            raise SpecError(f"{where}: a single saved Dataset has no splits; leave out split={split}")
    else:
        name, at, revision = ref.partition("@")
        if "/" not in name or not at or not revision:
            raise SpecError(f"{HF_PREFIX}{ref}: give ORG/NAME@REVISION (a commit hash or tag: the revision is "
                            "pinned) or the folder of a dataset saved with save_to_disk")
        if not split:
            raise SpecError(f"{HF_PREFIX}{ref}: give split= (e.g. split=test)")
        where, stem = f"{HF_PREFIX}{ref}", name.rsplit("/", 1)[-1]
        record = {"hf_dataset": name, "revision": revision}
        try:
            ds = datasets.load_dataset(name, revision=revision, split=split)
        except Exception as exc:  # offline without a cached copy, unknown name, revision or split
            raise DataError(f"{where} split={split}: could not load it ({_first_line(exc)}); "
                            "with HF_DATASETS_OFFLINE=1 it must be in the Hugging Face cache already") from None
    if split is not None:
        where += f"[{split}]"
        record["split"] = split
    columns = list(ds.column_names)
    rows = ds.to_list()
    if not rows:
        raise DataError(f"{where}: no rows")
    digest = canonical_digest(columns, rows)
    record["rows_sha256"] = digest
    return Table(where, stem, columns, rows, list(range(1, len(rows) + 1)), digest, record)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__
