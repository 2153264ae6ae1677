"""The data registry: where each data set comes from, pinned and hashed, and how to find it.

Lookup order for a data set ``NAME``: an explicit ``data_dir`` (CLI ``--data-dir``), then
``$COMPEVAL_DATA_DIR``; both hold ``NAME/…`` folders laid out like the project's shared data. Without
either, files are downloaded from their original public location at the pinned revision into
``<cache>/data/NAME/`` and their SHA-256 checked. No data file ships with compeval.

A local file whose SHA-256 differs from the pin (truncated, edited, another release) is an error, unless
the run allows it (``--allow-modified-data``, ``DataContext(allow_modified=True)``): then it is used, its
result records ``verified: false`` and ``modified_allowed: true``, and a text file that is not UTF-8 is
still refused with a one-line error naming the file and line.
"""
from __future__ import annotations

import hashlib
import os
import urllib.request
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import CompevalError, DataError, MalformedDataError, MissingDataError
from ..results.schema import DataProvenance


@dataclass(frozen=True)
class DataFile:
    path: str  # relative to the data set folder
    url: str
    sha256: str


@dataclass(frozen=True)
class DataSource:
    name: str
    description: str
    homepage: str
    revision: str
    license: str
    files: tuple[DataFile, ...]
    folder: str | None = None  # local sub-folder when it is not the source name (e.g. "sts3k/parses")

    def file(self, rel: str) -> DataFile:
        for f in self.files:
            if f.path == rel:
                return f
        raise KeyError(f"data set {self.name!r} has no registered file {rel!r}")


SOURCES: dict[str, DataSource] = {}


def register_source(source: DataSource) -> DataSource:
    """Called by a suite's ``sources.py`` (``compeval/tasks/<suite>/sources.py``) when it is imported."""
    SOURCES[source.name] = source
    return source


def get_source(name: str) -> DataSource:
    from ..plugins import discover_suites

    discover_suites("sources")  # every suite's sources.py registers its data sets
    try:
        return SOURCES[name]
    except KeyError:
        raise DataError(f"unknown data set {name!r}; known: {', '.join(sorted(SOURCES))}") from None


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


TEXT_SUFFIXES = {".txt", ".csv", ".tsv", ".json", ".jsonl", ".ipynb", ".tab", ".xml", ".conll", ".conllu"}


def check_text_file(path: Path) -> None:
    """Raise a one-line ``MalformedDataError`` (file and line) when a text data file is not UTF-8.

    Files of other kinds (``.xlsx``, archives) are left to their readers."""
    path = Path(path)
    if path.suffix.lower() not in TEXT_SUFFIXES:
        return
    payload = path.read_bytes()
    try:
        payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = payload.count(b"\n", 0, exc.start) + 1
        raise MalformedDataError(path, line, f"not UTF-8 text (byte 0x{payload[exc.start]:02x}); "
                                             "is it a binary or damaged file?") from None


def default_data_cache() -> Path:
    from ..paths import default_cache_dir

    return default_cache_dir() / "data"


@dataclass
class DataContext:
    """Resolves data files for tasks and records which files (and hashes) a task read.

    Give each task its own record (``for_task``) so that its result lists the files it read and nothing
    another task of the same run read; the copies share one table of file hashes, so a file is hashed
    once per run.
    """

    data_dir: Path | None = None
    download: bool = True
    cache_dir: Path | None = None
    allow_modified: bool = False  # use local files whose hash differs from the pin (recorded)
    used: dict[str, DataProvenance] = field(default_factory=dict)
    digests: dict[tuple[str, int, int], str] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        if self.data_dir is None and os.environ.get("COMPEVAL_DATA_DIR"):
            self.data_dir = Path(os.environ["COMPEVAL_DATA_DIR"])
        if self.data_dir is not None:
            self.data_dir = Path(self.data_dir).expanduser()
            if not self.data_dir.is_dir():
                raise MissingDataError(
                    f"data directory {self.data_dir} does not exist (from --data-dir or COMPEVAL_DATA_DIR); "
                    "point it at a folder holding one sub-folder per data set, e.g. sts3k/, stsb/, sick/"
                )
        if self.cache_dir is None:
            self.cache_dir = default_data_cache()

    def for_task(self) -> "DataContext":
        """The same settings and hash table, an empty record of files read."""
        return replace(self, used={}, digests=self.digests)

    def _digest(self, path: Path) -> str:
        st = path.stat()
        key = (str(path), st.st_mtime_ns, st.st_size)
        if key not in self.digests:
            self.digests[key] = sha256_file(path)
        return self.digests[key]

    def root(self, name: str) -> Path:
        base = self.data_dir if self.data_dir is not None else self.cache_dir
        return base / (get_source(name).folder or name)

    def available(self, name: str, files: list[str] | None = None) -> bool:
        """True when every needed file is already on disk (no download attempted)."""
        src = get_source(name)
        rels = files or [f.path for f in src.files]
        return all((self.root(name) / r).is_file() for r in rels)

    def path(self, name: str, rel: str) -> Path:
        """The local path of one registered file, downloading it if allowed; records provenance."""
        src = get_source(name)
        spec = src.file(rel)
        local = self.root(name) / rel
        if not local.is_file():
            if self.data_dir is not None:
                raise MissingDataError(
                    f"data set {name!r}: file {local} is missing. Copy it there (from {src.homepage} at "
                    f"revision {src.revision}), point --data-dir / COMPEVAL_DATA_DIR at a folder that has "
                    f"{name}/{rel}, or unset them to download into {self.cache_dir}"
                )
            if not self.download:
                raise MissingDataError(
                    f"data set {name!r}: {local} is not in the cache and downloads are off; "
                    f"run with downloads on, or give --data-dir"
                )
            self._download(spec, local, src)
        digest = self._digest(local)
        if digest != spec.sha256:
            if not self.allow_modified:
                raise DataError(
                    f"data set {name!r}: {local} has SHA-256 {digest[:16]}…, not the pinned {spec.sha256[:16]}… "
                    f"(revision {src.revision}); the file is truncated, edited or another version. Restore it "
                    f"from {src.homepage}, or pass --allow-modified-data to use it anyway (recorded in the result)"
                )
            check_text_file(local)
        prov = self.used.setdefault(
            name, DataProvenance(source=name, revision=src.revision, location=str(self.root(name)))
        )
        prov.files[rel] = digest
        prov.verified = all(
            prov.files[r] == src.file(r).sha256 for r in prov.files
        )
        if not prov.verified:
            prov.modified_allowed = True
        return local

    def _download(self, spec: DataFile, local: Path, src: DataSource) -> None:
        local.parent.mkdir(parents=True, exist_ok=True)
        try:
            with urllib.request.urlopen(spec.url, timeout=60) as resp:
                payload = resp.read()
        except Exception as exc:  # network errors vary by platform
            raise MissingDataError(
                f"data set {src.name!r}: could not download {spec.url} ({exc}). Without network access, "
                f"copy the data set to a folder and pass --data-dir (or set COMPEVAL_DATA_DIR)"
            ) from exc
        digest = hashlib.sha256(payload).hexdigest()
        if digest != spec.sha256:
            raise DataError(
                f"data set {src.name!r}: {spec.url} has SHA-256 {digest}, expected {spec.sha256}; "
                "the file changed upstream or the download was corrupted. Nothing was saved."
            )
        from ..results.store import atomic_write_bytes

        try:
            atomic_write_bytes(local, payload)  # no stray temporary file, the user's umask
        except CompevalError as exc:
            raise DataError(f"data set {src.name!r}: {exc}") from None

    def provenance(self, names: tuple[str, ...] | list[str]) -> list[DataProvenance]:
        return [self.used[n] for n in names if n in self.used]
