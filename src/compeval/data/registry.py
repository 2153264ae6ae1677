"""The data registry: each data set pinned (revision, SHA-256) and found in order in ``data_dir``
(``--data-dir``, ``$COMPEVAL_DATA_DIR``), the cache, or downloaded into the cache (README.md "Data").

A *derived* file (``Derivation``) is built by the suite's ``sources.py`` from pinned upstream files (kept
under ``NAME/upstream/``) and hash-checked too. A local file that differs from its pin is an error unless
the run allows it (``--allow-modified-data``): then its result records ``verified: false``; a text file
that is not UTF-8 is refused all the same. A cached file that fails its hash is fetched again."""
from __future__ import annotations

import hashlib
import os
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from ..errors import (CompevalError, CompevalWarning, DataError, MalformedDataError, MissingDataError,
                      RegistryError)
from ..registry import Registry
from ..results.schema import DataProvenance
from .download import MIRROR_ENV, DownloadProgress, NoNetworkError, check_mirror, fetch, mirrored


@dataclass(frozen=True)
class Derivation:
    """How a file is built from upstream files: ``build`` gets their local paths (in ``inputs`` order) and
    returns the file's bytes; it must read them as data (never execute them) and be deterministic."""

    inputs: tuple["DataFile", ...]  # the upstream files as they are (path under NAME/, url, sha256)
    build: Callable[[Sequence[Path]], bytes]
    recipe: str  # one line: what is taken from the inputs


@dataclass(frozen=True)
class DataFile:
    path: str  # relative to the data set folder
    url: str | None  # None for a derived file (its inputs have URLs)
    sha256: str
    derived: Derivation | None = None

    @property
    def upstream(self) -> tuple["DataFile", ...]:
        """The files fetched for this one: itself, or the inputs of its derivation."""
        return self.derived.inputs if self.derived is not None else (self,)


@dataclass(frozen=True)
class DataSource:
    name: str
    description: str
    homepage: str  # the data set's own home (paper page, original release), never a third-party copy
    revision: str
    license: str
    files: tuple[DataFile, ...]
    folder: str | None = None  # local sub-folder when it is not the source name (e.g. "sts3k/parses")
    download_size: int | None = None  # bytes fetched from upstream for the whole set (what a download costs)
    mirror: str | None = None  # the third-party copy the files are downloaded from, when not the homepage

    def file(self, rel: str) -> DataFile:
        for f in self.files:
            if f.path == rel:
                return f
        raise KeyError(f"data set {self.name!r} has no registered file {rel!r}")

    @property
    def location(self) -> str:
        """Where the files are downloaded from: the homepage or the named mirror."""
        return self.mirror or self.homepage


def declared_sources(module: Any) -> list[tuple[str, DataSource]]:
    """What a sources module (or a ``compeval.data`` entry point) declares: its ``SOURCES`` tuple, or the
    ``DataSource`` itself; importing it registers nothing."""
    found = getattr(module, "SOURCES", module)
    items = (found,) if isinstance(found, DataSource) else tuple(found)
    for item in items:
        if not isinstance(item, DataSource):
            raise TypeError(f"{getattr(module, '__name__', module)!r}: SOURCES holds {item!r}, not a DataSource")
    return [(src.name, src) for src in items]


def _discover_sources() -> None:
    """Every suite's ``sources.py`` declares its data sets in ``SOURCES``; the registry reads them."""
    from .. import plugins

    for module in plugins.discover_suites("sources"):
        try:
            declared = declared_sources(module)
        except TypeError as exc:  # one broken suite must not take the others down
            plugins.record_broken(module.__name__, exc)
            continue
        for name, src in declared:
            try:
                SOURCES.register(name, src, origin=f"{module.__name__}.SOURCES")
            except RegistryError as exc:  # a clash drops the second one only, named with both origins
                plugins.record_broken(f"{module.__name__}.SOURCES[{name!r}]", exc)


#: Data set name -> source: the suites' ``sources.py`` declarations and the ``compeval.data`` entry points,
#: read when first asked for. A model family that needs a data set asks for it by name (``get_source``,
#: ``DataContext.path``) and imports nothing of the suite that declares it.
SOURCES: Registry[DataSource] = Registry("data set", group="compeval.data", discover=_discover_sources,
                                         collect=declared_sources)


def register_source(source: DataSource) -> DataSource:
    """Register one data source from code (a test, a notebook); suites declare theirs in ``SOURCES``. The
    declared ones are read first, so a clash with one of them is refused here, naming both."""
    SOURCES.load()
    return SOURCES.register(source.name, source)


def get_source(name: str) -> DataSource:
    """The registered data set ``name`` (a ``DataError`` naming the known ones otherwise)."""
    try:
        return SOURCES[name]
    except KeyError:
        raise DataError(f"unknown data set {name!r}; known: {', '.join(sorted(SOURCES))}") from None


def sha256_file(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


TEXT_SUFFIXES = {".txt", ".csv", ".tsv", ".json", ".jsonl", ".ipynb", ".tab", ".xml", ".conll", ".conllu"}


def check_text_file(path: Path) -> None:
    """A one-line ``MalformedDataError`` (file and line) for a text data file that is not UTF-8."""
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
    """Resolves data files for tasks and records which files (and hashes) a task read. Each task gets
    its own record (``for_task``); the copies share one hash table, so a file is hashed once per run."""

    data_dir: Path | None = None
    download: bool = True  # False: --offline, nothing beyond the data folder and the cache
    #: Why downloads are off, as the missing-data line names it: the option the user gave, or the command that
    #: never downloads (``--plan``, ``compeval verify``).
    offline_reason: str = "--offline"
    cache_dir: Path | None = None
    allow_modified: bool = False  # use local files whose hash differs from the pin (recorded)
    mirror: str | None = None  # base URL replacing the upstream host; else $COMPEVAL_DATA_MIRROR
    progress: DownloadProgress | None = field(default=None, repr=False, compare=False)
    used: dict[str, DataProvenance] = field(default_factory=dict)
    digests: dict[tuple[str, int, int], str] = field(default_factory=dict, repr=False, compare=False)
    downloaded: int = field(default=0, compare=False)  # bytes this context (and its copies' parent) fetched

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
        self.cache_dir = Path(self.cache_dir).expanduser()
        self.mirror = check_mirror(self.mirror if self.mirror is not None else os.environ.get(MIRROR_ENV))

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
        """The data set's folder in the data folder when one is given, else in the cache."""
        base = self.data_dir if self.data_dir is not None else self.cache_dir
        return base / (get_source(name).folder or name)

    def folders(self, name: str) -> list[Path]:
        """Where the data set's files are looked for, in order: the data folder, then the cache."""
        sub = get_source(name).folder or name
        return [b / sub for b in (self.data_dir, self.cache_dir) if b is not None]

    def find(self, name: str, rel: str) -> Path | None:
        """The first local copy of a registered file (data folder, then cache), unverified; None if none."""
        for folder in self.folders(name):
            if (folder / rel).is_file():
                return folder / rel
        return None

    def available(self, name: str, files: list[str] | None = None) -> bool:
        """Every needed file (or every upstream file of a derived one) on disk, nothing hashed."""
        src = get_source(name)
        for spec in (src.file(r) for r in (files or [f.path for f in src.files])):
            if self.find(name, spec.path) is not None:
                continue
            if spec.derived is not None and all(self.find(name, u.path) for u in spec.derived.inputs):
                continue
            return False
        return True

    def path(self, name: str, rel: str) -> Path:
        """The local path of one registered file, downloading or deriving it if needed; records provenance."""
        src = get_source(name)
        local = self._resolve(src, src.file(rel))
        digest = self._digest(local)
        folder = local.parents[len(Path(rel).parts) - 1]  # the data set's folder (data folder or cache)
        prov = self.used.setdefault(
            name, DataProvenance(source=name, revision=src.revision, location=str(folder))
        )
        prov.files[rel] = digest
        prov.verified = all(prov.files[r] == src.file(r).sha256 for r in prov.files)
        if not prov.verified:
            prov.modified_allowed = True
        return local

    def fetch(self, name: str) -> list[Path]:
        """Every file of a data set, local and verified (downloaded or derived as needed)."""
        src = get_source(name)
        return [self._resolve(src, f) for f in src.files]

    # -- resolution ---------------------------------------------------------------------------------------

    def _resolve(self, src: DataSource, spec: DataFile) -> Path:
        sub = src.folder or src.name
        if self.data_dir is not None:
            local = self.data_dir / sub / spec.path
            if local.is_file():
                return self._checked(src, spec, local)
        cached = self.cache_dir / sub / spec.path
        if cached.is_file():
            if self._digest(cached) == spec.sha256:
                return cached
            if self.allow_modified or not self.download:
                return self._checked(src, spec, cached)
            warnings.warn(f"data set {src.name!r}: the cached {cached} has the wrong SHA-256; fetching it again",
                          CompevalWarning, stacklevel=2)
            cached.unlink()
        if spec.derived is not None:
            return self._derive(src, spec, cached)
        if not self.download:
            raise MissingDataError(self._offline_message(src, spec))
        url = mirrored(spec.url or "", self.mirror)
        try:
            self.downloaded += fetch(url, cached, spec.sha256, label=f"data set {src.name!r}",
                                     progress=self.progress, display=f"{src.name}: {spec.path}")
        except NoNetworkError as exc:
            raise NoNetworkError(f"{exc}; {self.how_to_get(src)}", exc.host, exc.reason) from None
        return cached

    def _checked(self, src: DataSource, spec: DataFile, local: Path) -> Path:
        """``local`` when its hash is the pin (or modified files are allowed); else a one-line error."""
        digest = self._digest(local)
        if digest == spec.sha256:
            return local
        if not self.allow_modified:
            if spec.derived is not None:
                put = ", ".join(f"{u.url} at {local.parent / u.path}" for u in spec.derived.inputs)
                raise DataError(
                    f"data set {src.name!r}: {local} has SHA-256 {digest[:16]}…, not that of the file compeval "
                    f"derives from upstream ({spec.sha256[:16]}…, {spec.derived.recipe}). Delete it and put "
                    f"the upstream file(s) there instead ({put}), or pass --allow-modified-data to use it anyway"
                )
            raise DataError(
                f"data set {src.name!r}: {local} has SHA-256 {digest[:16]}…, not the pinned {spec.sha256[:16]}… "
                f"(revision {src.revision}); the file is truncated, edited or another version. Restore it "
                f"from {src.location}, or pass --allow-modified-data to use it anyway (recorded in the result)"
            )
        check_text_file(local)
        return local

    def _derive(self, src: DataSource, spec: DataFile, dest: Path) -> Path:
        """Build a derived file from its upstream inputs (each found locally or fetched) into the cache."""
        inputs = []
        for u in spec.derived.inputs:
            if not self.download and not any((f / u.path).is_file() for f in self.folders(src.name)):
                raise MissingDataError(self._offline_message(src, u, derived=spec))
            inputs.append(self._resolve(src, u))
        try:
            payload = spec.derived.build(inputs)
        except CompevalError:
            raise
        except Exception as exc:  # a reader's error on a file whose hash matched: say which and why
            raise DataError(f"data set {src.name!r}: cannot derive {spec.path} from "
                            f"{', '.join(map(str, inputs))}: {type(exc).__name__}: {exc}") from None
        digest = hashlib.sha256(payload).hexdigest()
        if digest != spec.sha256:
            raise DataError(
                f"data set {src.name!r}: {spec.path} derived from {', '.join(u.path for u in spec.derived.inputs)} "
                f"has SHA-256 {digest[:16]}…, not the pinned {spec.sha256[:16]}…; nothing was saved (is the "
                f"reader's version the one compeval pins?)"
            )
        from ..results.store import atomic_write_bytes

        try:
            atomic_write_bytes(dest, payload)  # no stray temporary file, the user's umask
        except CompevalError as exc:
            raise DataError(f"data set {src.name!r}: {exc}") from None
        return dest

    def how_to_get(self, src: DataSource | None = None) -> str:
        """How to get data onto a machine without network (for one data set, or for any)."""
        holding = f"a folder holding {src.folder or src.name}/" if src is not None else "a folder with the data"
        return (f"get it with `compeval download` where there is network (it fills {self.cache_dir}), set "
                f"{MIRROR_ENV}, or give --data-dir {holding}")

    def _offline_message(self, src: DataSource, spec: DataFile, derived: DataFile | None = None) -> str:
        where = " or ".join(str(f) for f in self.folders(src.name))
        what = (f"{derived.path} is built from upstream {spec.path}, which" if derived is not None
                else spec.path)
        return (f"data set {src.name!r}: {what} is not in {where}, and downloads are off ({self.offline_reason}); copy "
                f"{spec.url} to {src.folder or src.name}/{spec.path} in your data folder, or {self.how_to_get(src)}")

    def provenance(self, names: tuple[str, ...] | list[str]) -> list[DataProvenance]:
        return [self.used[n] for n in names if n in self.used]
