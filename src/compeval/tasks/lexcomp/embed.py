"""Word-level token vectors through the protocol's ``TokenEncoder``, computed once per sentence.

Cached per model config id in ``<cache>/lexcomp_tokens/<id>.sqlite`` (float16, keyed by the tab-joined words)."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Sequence

import numpy as np


def _key(words: Sequence[str]) -> str:
    return "\t".join(words)


class TokenCache:
    """Token vectors of one model on disk (SQLite, float16) plus an in-memory copy for the run."""

    _memory: dict[str, dict[str, np.ndarray]] = {}

    def __init__(self, encoder: Any, directory: Path | None = None):
        self.encoder = encoder
        self.id = encoder.config.id
        self.mem = self._memory.setdefault(self.id, {})
        self.conn = None
        if directory is not None:
            path = Path(directory) / "lexcomp_tokens" / f"{self.id}.sqlite"
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(path, timeout=60)
            self.conn.execute("CREATE TABLE IF NOT EXISTS tok (k TEXT PRIMARY KEY, n INTEGER, l INTEGER, "
                              "d INTEGER, v BLOB)")
        self.encoded = 0
        self.from_disk = 0

    def get(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        keys = [_key(s) for s in sentences]
        missing = list(dict.fromkeys(k for k in keys if k not in self.mem))
        if missing and self.conn is not None:
            for i in range(0, len(missing), 500):
                chunk = missing[i : i + 500]
                q = f"SELECT k, n, l, d, v FROM tok WHERE k IN ({','.join('?' * len(chunk))})"
                for k, n, l, d, v in self.conn.execute(q, chunk):
                    self.mem[k] = np.frombuffer(v, dtype=np.float16).reshape(n, l, d)
                    self.from_disk += 1
            missing = [k for k in missing if k not in self.mem]
        if missing:
            vecs = self.encoder.encode_tokens([k.split("\t") if k else [] for k in missing])
            rows = []
            for k, v in zip(missing, vecs):
                v = np.asarray(v, dtype=np.float32)
                if v.ndim == 2:
                    v = v[:, None, :]
                v16 = v.astype(np.float16)
                self.mem[k] = v16
                rows.append((k, v.shape[0], v.shape[1], v.shape[2], v16.tobytes()))
            self.encoded += len(missing)
            if self.conn is not None:
                with self.conn:
                    self.conn.executemany("INSERT OR REPLACE INTO tok VALUES (?, ?, ?, ?, ?)", rows)
        return [self.mem[k] for k in keys]

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


