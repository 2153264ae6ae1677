"""Labeler agreement with the hand-corrected role parses, and parse + score time per 1,000 pairs.

Run: COMPEVAL_DATA_DIR=/work/shared/data python benchmarks/roles_benchmark.py [--pairs 1000]

The labeler's preposition table and verb lists were set by looking at STS3k, so STS3k is its tuning
set; the pilot, GS2011 and STS-B captions parses are held out and show how well the rules transfer.
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pandas as pd  # noqa: E402

from compeval.data.registry import DataContext  # noqa: E402
from compeval.models.families.roles.agreement import agreement_table  # noqa: E402
from compeval.linguistics.labeler import RoleLabeler  # noqa: E402
from compeval.linguistics.roles import HAND_FILES, load_hand_parses  # noqa: E402


def agreement(labeler: RoleLabeler, files, title: str) -> None:
    table = load_hand_parses(files=files)
    texts, gold = [], []
    for (a, b), (pa, pb) in table.by_pair.items():
        texts += [a, b]
        gold += [pa, pb]
    pred = labeler.label(texts)
    out = agreement_table(pred, gold)
    print(f"\n## {title}: {len(gold)} sentences ({len(set(texts))} distinct)")
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(out.round(3).to_string())


def timing(n_pairs: int) -> None:
    import numpy as np

    from compeval.cache.cached import EmbeddingCache
    from compeval.models.registry import load_model

    ctx = DataContext()
    rows = [l.rstrip("\n").rsplit(";", 2) for l in open(ctx.path("sts3k", "STS3k_all.txt"), encoding="utf-8")]
    rows = rows[:n_pairs]
    a, b = [r[0] for r in rows], [r[1] for r in rows]
    model = load_model("roles:glove-6b-50d,parses=spacy", cache=EmbeddingCache(None))
    labeler = model.model.parses if hasattr(model, "model") else model.parses
    t0 = time.perf_counter()
    labeler.label(a + b)
    t_parse = time.perf_counter() - t0
    t0 = time.perf_counter()
    scores = model.score_pairs(a, b)
    t_score = time.perf_counter() - t0
    t0 = time.perf_counter()
    model.model.role_similarity_matrix(a, b) if hasattr(model, "model") else None
    t_warm = time.perf_counter() - t0
    per = 1000 / len(a)
    print(f"\n## Labeler-based role model, {len(a)} STS3k pairs ({len(set(a + b))} distinct sentences), 1 thread")
    print(f"parse (spaCy + rules, cold): {t_parse * per:.2f} s per 1,000 pairs")
    print(f"score (phrase vectors + role cosines, parses cached, vectors cold): {t_score * per:.2f} s per 1,000 pairs")
    print(f"score again (everything cached): {t_warm * per:.2f} s per 1,000 pairs")
    print(f"total cold: {(t_parse + t_score) * per:.2f} s per 1,000 pairs; NaN scores: {int(np.isnan(scores).sum())}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1000, help="pairs for the timing run")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    labeler = RoleLabeler(cache_dir=None)
    agreement(labeler, HAND_FILES[:1], "STS3k (tuning set)")
    agreement(labeler, HAND_FILES[1:], "held out: pilot, GS2011, STS-B captions")
    timing(args.pairs)


if __name__ == "__main__":
    main()
