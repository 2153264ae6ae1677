"""On-disk embedding store: one SQLite file per model configuration id.

SQLite gives atomic, multi-process-safe writes (WAL journal, busy timeout) with the standard
library only, so concurrent runs and Ray workers can share one cache directory. Vectors are
stored as raw float32 bytes; pair scores (for pair-scoring models) as REAL.
"""
from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from ..paths import default_cache_dir  # noqa: F401  (re-exported: where the cache lives by default)

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
            msg = str(exc).lower()
            if ("locked" not in msg and "busy" not in msg) or time.monotonic() > end:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


class EmbeddingStore:
    """Vectors and pair scores of one model configuration, persisted in ``<dir>/<id>.sqlite``."""

    def __init__(self, directory: Path, config_id: str):
        self.path = Path(directory) / "embeddings" / f"{config_id}.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, timeout=_TIMEOUT, isolation_level=None, check_same_thread=False)
        self._conn.execute(f"PRAGMA busy_timeout={int(_TIMEOUT * 1000)}")
        # Several processes may open a new file at once: switching it to WAL and creating the tables
        # need a write lock, which SQLite can refuse outright (SQLITE_BUSY) instead of waiting for it.
        _retry_locked(lambda: self._conn.execute("PRAGMA journal_mode=WAL"))
        self._conn.execute("PRAGMA synchronous=NORMAL")
        _retry_locked(lambda: self._conn.execute(
            "CREATE TABLE IF NOT EXISTS vectors (text TEXT PRIMARY KEY, dim INTEGER, vec BLOB)"))
        _retry_locked(lambda: self._conn.execute(
            "CREATE TABLE IF NOT EXISTS pairs (a TEXT, b TEXT, score REAL, PRIMARY KEY (a, b))"))

    def get_vectors(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for i in range(0, len(texts), _CHUNK):
            chunk = list(texts[i : i + _CHUNK])
            q = f"SELECT text, vec FROM vectors WHERE text IN ({','.join('?' * len(chunk))})"
            for text, blob in self._conn.execute(q, chunk):
                found[text] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_vectors(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        rows = [(t, int(v.shape[0]), np.ascontiguousarray(v, dtype=np.float32).tobytes()) for t, v in zip(texts, vectors)]
        self._write("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)

    def get_pairs(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], float]:
        found: dict[tuple[str, str], float] = {}
        cur = self._conn.cursor()
        cur.execute("CREATE TEMP TABLE IF NOT EXISTS want (a TEXT, b TEXT)")
        cur.execute("DELETE FROM want")
        cur.executemany("INSERT INTO want VALUES (?, ?)", pairs)
        for a, b, s in cur.execute("SELECT p.a, p.b, p.score FROM pairs p JOIN want w ON p.a = w.a AND p.b = w.b"):
            found[(a, b)] = float("nan") if s is None else s
        cur.execute("DELETE FROM want")
        return found

    def put_pairs(self, pairs: Iterable[tuple[str, str]], scores: Iterable[float]) -> None:
        rows = [(a, b, None if np.isnan(s) else float(s)) for (a, b), s in zip(pairs, scores)]
        self._write("INSERT OR REPLACE INTO pairs VALUES (?, ?, ?)", rows)

    def _write(self, sql: str, rows: list) -> None:
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
