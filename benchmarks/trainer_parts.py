"""The probing heads timed apart: batched torch MLPs vs scikit-learn's ``MLPClassifier``, and batched
L-BFGS cross-validated logistic regression vs ``LogisticRegressionCV``, on a task's real features.

For each task the classifier requests are captured from a normal evaluation (the model's vectors, the
probe one-hots, the controls), saved next to ``--features`` so later runs skip the encoding, and then
fitted by each trainer in the same process. Printed per task: wall and CPU seconds per part and trainer,
the speed-up, the chosen C of both logistic regressions and the test accuracies.

scikit-learn runs at its own default tolerance (``--sklearn-tol 1e-4``, the path before the torch
trainer); torch at the task's default ``logreg_tol``. ``--reference-tol 1e-10`` adds scikit-learn solved
to that tolerance (its minimum), timed after the others, and counts the heads whose C each trainer
shares with it.

    COMPEVAL_DATA_DIR=../shared/data python benchmarks/trainer_parts.py --model all-MiniLM-L6-v2 \\
        --suite probing [--task ettinger2018-sr] [--parts mlp,logreg] [--features /tmp/parts] [--reference-tol 1e-10]
"""
from __future__ import annotations

import argparse
import os
import pickle
import time
from pathlib import Path

import numpy as np

from compeval.cache.cached import EmbeddingCache
from compeval.data.registry import DataContext
from compeval.models.registry import load_model
from compeval.tasks.probing import classifiers as clf
from compeval.tasks.registry import get_tasks
from compeval.training.settings import AdamSettings, LBFGSSettings


class _Captured(Exception):
    pass


def capture(task_name: str, model_name: str, cache_dir: Path, seed: int) -> list:
    """The ``FitRequest``s one evaluation of ``task_name`` would train (the evaluation stops there)."""
    data = DataContext(os.environ.get("COMPEVAL_DATA_DIR"), download=False)
    task = get_tasks(task_name)[0]
    task.load(data)
    model = load_model(model_name, cache=EmbeddingCache(cache_dir))
    seen: list = []
    original = clf.fit_many

    def grab(requests, **settings):
        seen.extend(requests)
        raise _Captured

    import compeval.tasks.probing.evaluation as ev
    ev.fit_many = grab
    try:
        task.evaluate(model, seed=seed)
    except _Captured:
        pass
    finally:
        ev.fit_many = original
    return seen


def _same_c(rows: list, a: str, b: str) -> str:
    """On how many tasks (and heads) fitters ``a`` and ``b`` chose the same C."""
    pairs = [[x["C"] == y["C"] for x, y in zip(r[a]["info"], r[b]["info"])] for r in rows]
    return (f"{sum(all(p) for p in pairs)} of {len(rows)} tasks "
            f"({sum(map(sum, pairs))} of {sum(r['heads'] for r in rows)} heads)")


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--suite", action="append", default=[])
    ap.add_argument("--task", action="append", default=[])
    ap.add_argument("--parts", default="mlp,logreg")
    ap.add_argument("--trainers", default="sklearn,torch")
    ap.add_argument("--features", default="/tmp/compeval-trainer-parts")
    ap.add_argument("--mlp-max-iter", type=int, default=700)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sklearn-tol", type=float, default=clf.SKLEARN_DEFAULT_LOGREG.tol,
                    help="LogisticRegressionCV's tol (default: its own)")
    ap.add_argument("--reference-tol", type=float, default=None,
                    help="also fit scikit-learn's logistic regressions to this tolerance and compare C with it")
    args = ap.parse_args()
    import torch

    names = args.task or [t.name for s in (args.suite or ["probing"]) for t in get_tasks(s)]
    store = Path(args.features)
    store.mkdir(parents=True, exist_ok=True)
    mlp = AdamSettings(max_iter=args.mlp_max_iter)
    parts, trainers = args.parts.split(","), args.trainers.split(",")
    print(f"model {args.model}; torch threads {torch.get_num_threads()}; load average {os.getloadavg()[0]:.1f}; "
          f"mlp_max_iter {args.mlp_max_iter}", flush=True)
    rows = []
    for name in names:
        path = store / f"{args.model}--{name}--{args.seed}.pkl"
        if path.exists():
            requests = pickle.loads(path.read_bytes())
        else:
            requests = capture(name, args.model, store / "cache", args.seed)
            path.write_bytes(pickle.dumps(requests))
        for part in parts:
            reqs = [r for r in requests if r.classifier == part]
            if not reqs:
                continue
            row = {"task": name, "part": part, "heads": len(reqs), "shape": reqs[0].x_train.shape}
            for trainer in trainers:
                logreg = (clf.SKLEARN_DEFAULT_LOGREG.model_copy(update={"tol": args.sklearn_tol})
                          if trainer == "sklearn" else LBFGSSettings())
                out, w, c = _timed(lambda: clf.fit_many(reqs, mlp=mlp, logreg=logreg, trainer=trainer))
                row[trainer] = dict(wall=w, cpu=c, info=[i for _, i in out], pred=[p for p, _ in out])
            if part == "logreg" and args.reference_tol:
                reference = LBFGSSettings(tol=args.reference_tol, max_iter=100_000)
                out, w, c = _timed(lambda: clf.fit_many(reqs, mlp=mlp, logreg=reference, trainer="sklearn"))
                row["reference"] = dict(wall=w, cpu=c, info=[i for _, i in out])
            rows.append(row)
            line = f"{name:24s} {part:6s} heads {row['heads']} {row['shape']}"
            for trainer in trainers:
                line += f" | {trainer} {row[trainer]['wall']:7.1f}s wall {row[trainer]['cpu']:7.1f}s cpu"
            if {"sklearn", "torch"} <= set(trainers):
                line += f" | speed-up {row['sklearn']['wall'] / max(row['torch']['wall'], 1e-9):5.1f}×"
                agree = np.mean([np.mean(a == b) for a, b in zip(row["sklearn"]["pred"], row["torch"]["pred"])])
                line += f" | same predictions {agree:.3f}"
                line += f" | sklearn {row['sklearn']['info']} torch {row['torch']['info']}"
            if "reference" in row:
                line += (f" | reference (tol {args.reference_tol:g}) {row['reference']['wall']:.1f}s wall "
                         f"{row['reference']['info']}")
            print(line, flush=True)
    if {"sklearn", "torch"} <= set(trainers):
        print("\n| task | part | heads | sklearn s (wall/cpu) | torch s (wall/cpu) | speed-up (wall) | fitted sklearn | fitted torch |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['task']} | {r['part']} | {r['heads']} | {r['sklearn']['wall']:.1f}/{r['sklearn']['cpu']:.1f} | "
                  f"{r['torch']['wall']:.1f}/{r['torch']['cpu']:.1f} | "
                  f"{r['sklearn']['wall'] / max(r['torch']['wall'], 1e-9):.1f}× | "
                  f"{[i.get('C', i.get('n_iter')) for i in r['sklearn']['info']]} | "
                  f"{[i.get('C', i.get('n_iter')) for i in r['torch']['info']]} |")
        for part in parts:
            sel = [r for r in rows if r["part"] == part]
            if sel:
                sk = sum(r["sklearn"]["wall"] for r in sel)
                to = sum(r["torch"]["wall"] for r in sel)
                line = f"{part}: {len(sel)} tasks, sklearn {sk:.1f}s, torch {to:.1f}s, speed-up {sk / max(to, 1e-9):.1f}×"
                if part == "logreg":
                    line += f"; same C on {_same_c(sel, 'sklearn', 'torch')}"
                    if all("reference" in r for r in sel):
                        ref = sum(r["reference"]["wall"] for r in sel)
                        line += f"; scikit-learn at tol {args.reference_tol:g} {ref:.1f}s ({ref / max(to, 1e-9):.1f}× torch)"
                        for trainer in ("sklearn", "torch"):
                            line += (f"; {trainer} has the C of scikit-learn at tol {args.reference_tol:g} on "
                                     f"{_same_c(sel, trainer, 'reference')}")
                print(line)


if __name__ == "__main__":
    main()
