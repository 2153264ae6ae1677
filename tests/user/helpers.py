"""Small generated files for the user-task tests, and a tiny order-sensitive encoder."""
from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import numpy as np

from compeval.models.protocol import ModelConfig

NOUNS = ["lawyer", "witness", "doctor", "patient", "teacher", "student", "chef", "waiter", "pilot", "mechanic"]
VERBS = ["questioned", "helped", "called", "visited", "praised"]


class BigramEncoder:
    """Mean of hashed word and word-bigram vectors: sees word order, deterministic, any vocabulary."""

    def __init__(self, dim: int = 24):
        self.dim = dim
        self.config = ModelConfig(family="bigram.v1", name="bigram", params={"dim": dim})

    def _vec(self, token: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(token.encode()).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self.dim)

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            w = t.lower().split()
            toks = w + [f"{a}_{b}" for a, b in zip(w, w[1:])]
            out[i] = np.mean([self._vec(x) for x in toks], axis=0)
        return out


def cosines(encoder, a: list[str], b: list[str]) -> np.ndarray:
    x, y = encoder.encode(a).astype(np.float64), encoder.encode(b).astype(np.float64)
    return (x * y).sum(1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y, axis=1)


def role_rows(n: int | None = None) -> list[dict[str, str]]:
    """Role-reversal triplets: a sentence, its passive paraphrase, the sentence with the roles swapped."""
    rows = []
    for v in VERBS:
        for a in NOUNS:
            for b in NOUNS:
                if a != b:
                    rows.append({"sentence": f"the {a} {v} the {b}", "paraphrase": f"the {b} was {v} by the {a}",
                                 "swap": f"the {b} {v} the {a}", "verb": v})
    return rows[:n] if n else rows


def pair_rows(n: int = 40, seed: int = 0) -> list[dict[str, str]]:
    rng = np.random.default_rng(seed)
    rows = []
    for k, r in enumerate(role_rows(n)):
        rows.append({"s1": r["sentence"], "s2": r["paraphrase"] if k % 2 else r["swap"],
                     "gold": f"{rng.uniform(0, 5):.3f}", "kind": "adv" if k % 3 else "non"})
    return rows


def write_csv(path: Path, rows: list[dict], delimiter: str = ",") -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter=delimiter)
        w.writeheader()
        w.writerows(rows)
    return path


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def loaded(spec: str):
    """The one task a spec names, its data loaded."""
    from compeval.tasks.registry import get_tasks

    (task,) = get_tasks(spec)
    task.load(None)
    return task


def score_of(out, subset: str, metric: str):
    return next(s for s in out.scores if s.subset == subset and s.metric == metric)
