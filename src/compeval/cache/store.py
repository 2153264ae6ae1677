"""On-disk embedding store: one SQLite file per model configuration id (atomic, multi-process-safe writes with
the standard library). Every row carries a CRC-32 of text and value; a bad row is deleted and encoded again,
and a file SQLite cannot read, or that holds another model's id, is moved to ``<name>.corrupt-<time>``."""
from __future__ import annotations

import os
import sqlite3
import struct
import time
import warnings
import zlib
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from ..paths import default_cache_dir  # noqa: F401  (re-exported: where the cache lives by default)
from ..errors import CompevalError, CompevalWarning


class CacheError(CompevalError):
    """The embedding cache cannot be used at all (not a file, a folder that cannot be created)."""

_CHUNK = 900  # SQLite host-parameter limit is 999 on old builds
_TIMEOUT = 60.0  # seconds a connection waits for another process's write lock


def _retry_locked(action, deadline: float = _TIMEOUT):
    """Run ``action``, retrying while SQLite reports the file busy or locked (up to ``deadline`` s)."""
    end = time.monotonic() + deadline
    delay = 0.01
    while True:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not _is_locked(exc) or time.monotonic() > end:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


def _is_locked(exc: BaseException) -> bool:
    msg = str(exc).lower()
    return "locked" in msg or "busy" in msg


def _is_corrupt(exc: BaseException) -> bool:
    """A damaged file (as opposed to a busy one, or a full / read-only disk, which rebuilding cannot fix)."""
    if not isinstance(exc, sqlite3.DatabaseError) or _is_locked(exc):
        return False
    msg = str(exc).lower()
    return not any(w in msg for w in ("disk is full", "readonly", "read-only", "unable to open", "disk i/o"))


def vector_crc(text: str, vec: bytes) -> int:
    return zlib.crc32(vec, zlib.crc32(text.encode("utf-8", "surrogatepass")))


def pair_crc(a: str, b: str, score: float | None) -> int:
    value = b"N" if score is None else struct.pack("<d", score)
    return zlib.crc32(value, zlib.crc32(f"{a}\x00{b}\x00".encode("utf-8", "surrogatepass")))


class EmbeddingStore:
    """Vectors and pair scores of one model configuration, persisted in ``<dir>/<id>.sqlite``."""

    def __init__(self, directory: Path, config_id: str):
        self.config_id = config_id
        self.path = Path(directory) / "embeddings" / f"{config_id}.sqlite"
        if self.path.exists() and not self.path.is_file():
            raise CacheError(f"embedding cache {self.path} is not a file (a folder?); remove it or give "
                             "another --cache-dir")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CacheError(f"cannot create the embedding cache folder {self.path.parent}: "
                             f"{exc.strerror or exc}") from None
        self.dropped = 0  # corrupt rows deleted from this file during this run
        self._warned = False
        self._dim: int | None = None
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            if not _is_corrupt(exc):
                raise CacheError(f"embedding cache {self.path}: {exc}") from None
            self._rebuild(exc)
        foreign = self._foreign()
        if foreign is not None:
            self._dim = None  # the other model's dimension is no expectation for this one
            self._rebuild(foreign)

    def _foreign(self) -> str | None:
        """Why this file belongs to no model or to another one, or None (a new file is claimed here)."""
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'model_id'").fetchone()
        if row is None:
            held = self._conn.execute("SELECT EXISTS(SELECT 1 FROM vectors) OR EXISTS(SELECT 1 FROM pairs)")
            if held.fetchone()[0]:
                return "it holds entries but no model id, so they cannot be tied to this model"
            self._write_once("INSERT OR IGNORE INTO meta VALUES ('model_id', ?)", [(self.config_id,)])
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'model_id'").fetchone()
        if row[0] != self.config_id:
            return f"it holds the vectors of model {row[0]!r}, not {self.config_id!r}"
        return None
    def _open(self) -> None:
        self._conn = sqlite3.connect(self.path, timeout=_TIMEOUT, isolation_level=None, check_same_thread=False)
        try:
            self._conn.execute(f"PRAGMA busy_timeout={int(_TIMEOUT * 1000)}")
            # Several processes may open a new file at once: switching it to WAL and creating the tables
            # need a write lock, which SQLite can refuse outright (SQLITE_BUSY) instead of waiting for it.
            _retry_locked(lambda: self._conn.execute("PRAGMA journal_mode=WAL"))
            self._conn.execute("PRAGMA synchronous=NORMAL")
            _retry_locked(lambda: self._conn.execute(
                "CREATE TABLE IF NOT EXISTS vectors (text TEXT PRIMARY KEY, dim INTEGER, vec BLOB, crc INTEGER)"))
            _retry_locked(lambda: self._conn.execute(
                "CREATE TABLE IF NOT EXISTS pairs (a TEXT, b TEXT, score REAL, crc INTEGER, PRIMARY KEY (a, b))"))
            _retry_locked(lambda: self._conn.execute(
                "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)"))
            for table in ("vectors", "pairs"):  # files written before checksums: add the column
                columns = {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}
                if "crc" not in columns:
                    try:
                        _retry_locked(lambda t=table: self._conn.execute(f"ALTER TABLE {t} ADD COLUMN crc INTEGER"))
                    except sqlite3.OperationalError as exc:
                        if "duplicate column" not in str(exc).lower():  # another process added it first
                            raise
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'dim'").fetchone()
            self._dim = int(row[0]) if row and str(row[0]).isdigit() and int(row[0]) > 0 else None
        except BaseException:
            self._conn.close()
            raise

    def _rebuild(self, exc: BaseException | str) -> None:
        """Move a file SQLite cannot read, or one of another model, aside (kept for inspection) and start
        an empty one."""
        try:
            self._conn.close()
        except Exception:
            pass
        dim = self._dim
        aside = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
        for suffix in ("", "-wal", "-shm"):
            part = Path(str(self.path) + suffix)
            if part.exists():
                os.replace(part, Path(str(aside) + suffix))
        why = exc if isinstance(exc, str) else f"could not be read ({exc})"
        warnings.warn(f"embedding cache {self.path}: {why}; moved it to {aside.name} and "
                      "started an empty one (its texts are encoded again)", CompevalWarning, stacklevel=3)
        self._open()
        self._dim = dim  # what this run has seen stays the expectation
        if dim is not None:
            self._write_once("INSERT OR IGNORE INTO meta VALUES ('dim', ?)", [(str(dim),)])

    def _guard(self, action, empty):
        """Run a read; a damaged file is rebuilt and reads as empty (everything is encoded again)."""
        try:
            return action()
        except sqlite3.DatabaseError as exc:
            if not _is_corrupt(exc):
                raise
            self._rebuild(exc)
            return empty

    def _drop(self, table: str, keys: list[tuple], reason: str) -> None:
        if not keys:
            return
        where = "text = ?" if table == "vectors" else "a = ? AND b = ?"
        self._write(f"DELETE FROM {table} WHERE {where}", keys)
        self.dropped += len(keys)
        if not self._warned:
            self._warned = True
            warnings.warn(f"embedding cache {self.path}: dropped {len(keys)} damaged entr"
                          f"{'y' if len(keys) == 1 else 'ies'} ({reason}); encoding them again",
                          CompevalWarning, stacklevel=4)

    def get_vectors(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        return self._guard(lambda: self._get_vectors(texts), {})

    def _get_vectors(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        bad: list[tuple[str]] = []
        reasons: set[str] = set()
        for i in range(0, len(texts), _CHUNK):
            chunk = list(texts[i : i + _CHUNK])
            q = f"SELECT text, dim, vec, crc FROM vectors WHERE text IN ({','.join('?' * len(chunk))})"
            for text, dim, blob, crc in self._conn.execute(q, chunk):
                reason = self._vector_problem(text, dim, blob, crc)
                if reason is None:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if np.isfinite(vec).all():
                        found[text] = vec
                        continue
                    reason = "not finite"
                bad.append((text,))
                reasons.add(reason)
        self._drop("vectors", bad, ", ".join(sorted(reasons)))
        return found

    def _vector_problem(self, text: str, dim, blob, crc) -> str | None:
        if not isinstance(blob, bytes) or not isinstance(dim, int) or len(blob) != 4 * dim or dim <= 0:
            return "wrong length"
        if self._dim is not None and dim != self._dim:
            return f"dimension {dim}, not {self._dim}"
        if crc is None:
            return "no checksum"
        if crc != vector_crc(text, blob):
            return "checksum mismatch"
        return None

    def put_vectors(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        rows = []
        for t, v in zip(texts, vectors):
            blob = np.ascontiguousarray(v, dtype=np.float32).tobytes()
            rows.append((t, int(v.shape[0]), blob, vector_crc(t, blob)))
        if rows and self._dim is None:
            self._dim = rows[0][1]
            self._write("INSERT OR IGNORE INTO meta VALUES ('dim', ?)", [(str(self._dim),)])
        self._write("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)

    def get_pairs(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], float]:
        return self._guard(lambda: self._get_pairs(pairs), {})

    def _get_pairs(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], float]:
        found: dict[tuple[str, str], float] = {}
        bad: list[tuple[str, str]] = []
        cur = self._conn.cursor()
        cur.execute("CREATE TEMP TABLE IF NOT EXISTS want (a TEXT, b TEXT)")
        cur.execute("DELETE FROM want")
        cur.executemany("INSERT INTO want VALUES (?, ?)", pairs)
        rows = cur.execute("SELECT p.a, p.b, p.score, p.crc FROM pairs p JOIN want w ON p.a = w.a AND p.b = w.b")
        for a, b, s, crc in rows.fetchall():
            if (s is not None and not isinstance(s, float)) or crc is None or crc != pair_crc(a, b, s):
                bad.append((a, b))
                continue
            found[(a, b)] = float("nan") if s is None else s
        cur.execute("DELETE FROM want")
        self._drop("pairs", bad, "checksum missing or wrong")
        return found

    def put_pairs(self, pairs: Iterable[tuple[str, str]], scores: Iterable[float]) -> None:
        rows = []
        for (a, b), s in zip(pairs, scores):
            value = None if np.isnan(s) else float(s)
            rows.append((a, b, value, pair_crc(a, b, value)))
        self._write("INSERT OR REPLACE INTO pairs VALUES (?, ?, ?, ?)", rows)

    def _write(self, sql: str, rows: list) -> None:
        """One transaction per batch; a file found damaged while writing is rebuilt and the batch written
        to the fresh one."""
        try:
            self._write_once(sql, rows)
        except sqlite3.DatabaseError as exc:
            if not _is_corrupt(exc):
                raise
            self._rebuild(exc)
            self._write_once(sql, rows)

    def _write_once(self, sql: str, rows: list) -> None:
        """One transaction per batch: a crash leaves either all of a batch or none of it."""
        _retry_locked(lambda: self._conn.execute("BEGIN IMMEDIATE"))
        try:
            self._conn.executemany(sql, rows)
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def __len__(self) -> int:
        return self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]

    def close(self) -> None:
        self._conn.close()
