"""Does the torch trainer reproduce the figures of the path it replaces? Mean over seeds, paired difference
and its standard error.

Probing (the five Ettinger 2018 tasks): each task is evaluated per seed with ``trainer=sklearn``
(scikit-learn's ``MLPClassifier`` / ``LogisticRegressionCV`` one after another) and ``trainer=torch``
(``compeval.training``, batched) at the same settings (the paper's 700 iterations, scikit-learn's stopping
rule), same vectors and seed. Lexcomp has no scikit-learn path: its reference is the CPU training loop
the task used before the trainer existed (copied below verbatim), against ``compeval.training.loop`` on
the run's device; the networks, data order and seeds are the same.

The difference is torch − reference per seed; SE is the standard deviation of those paired differences
over √seeds. "same C" counts the seeds where both logistic regressions chose the same C.

    COMPEVAL_DATA_DIR=../shared/data python benchmarks/trainer_agreement.py --model glove-6b-50d --seeds 5 \\
        [--task ettinger2018-sr ...] [--lexcomp lexcomp-nc-literality --lexcomp-options encoders=none,layers=top]
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import re
import time

import numpy as np
import torch
from torch import nn

from compeval.cache.cached import EmbeddingCache
from compeval.context import RunContext
from compeval.data.registry import DataContext
from compeval.models.registry import load_model
from compeval.tasks.registry import get_tasks

ETTINGER = ("ettinger2018-sr", "ettinger2018-neg", "ettinger2018-cont1", "ettinger2018-cont2", "ettinger2018-order")
PROBE_SUBSETS = ("mlp", "logreg", "control-gaussian", "control-random-probe")


def reference_train(model, train_inputs, y, loss_fn, val_score, cfg, seed, lengths=None, **_ignored):
    """The lexcomp loop as it was before ``compeval.training`` (CPU only), kept here as the reference."""
    from compeval.training.loop import TrainResult, length_batches

    t0 = time.perf_counter()
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    best, best_state, best_epoch, history = None, None, -1, []
    n = len(y)
    epoch = 0
    for epoch in range(1, cfg.max_epochs + 1):
        model.train()
        batches = (length_batches(lengths, cfg.batch_size, gen) if lengths is not None
                   else torch.randperm(n, generator=gen).split(cfg.batch_size))
        for idx in batches:
            opt.zero_grad()
            loss = loss_fn(model(*(t[idx] if t is not None else None for t in train_inputs)), y[idx])
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            score = val_score(model)
        score = tuple(float(v) for v in score) if isinstance(score, tuple) else (float(score),)
        history.append(score[0])
        if best is None or score > best:
            best, best_state, best_epoch = score, copy.deepcopy(model.state_dict()), epoch
        elif epoch - best_epoch >= cfg.patience:
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return TrainResult(model, best[0] if best else float("nan"), best_epoch, epoch, time.perf_counter() - t0, history)


def _values(out, subsets) -> dict[str, float]:
    return {s.subset: s.value for s in out.scores if s.subset in subsets and s.value is not None}


def _row(name: str, subset: str, ref: list[float], new: list[float], extra: str = "") -> dict:
    ref, new = np.asarray(ref, dtype=float), np.asarray(new, dtype=float)
    diff = new - ref
    se = float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else float("nan")
    return dict(task=name, subset=subset, seeds=len(diff), reference=float(ref.mean()), torch=float(new.mean()),
                diff=float(diff.mean()), se=se, extra=extra)


def probing(args, data: DataContext) -> list[dict]:
    rows = []
    for name in args.task or ETTINGER:
        model = load_model(args.model, cache=EmbeddingCache(None))
        base = get_tasks(name)[0]
        base.load(data)
        model.encode(list(dict.fromkeys(base.texts())))  # once: both trainers read the same vectors
        per = {tr: {s: [] for s in PROBE_SUBSETS} for tr in ("sklearn", "torch")}
        cs = {tr: [] for tr in ("sklearn", "torch")}
        secs = {tr: 0.0 for tr in ("sklearn", "torch")}
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            for trainer in ("sklearn", "torch"):
                task = get_tasks(f"{name},trainer={trainer}")[0]
                task.load(data)
                task.context = RunContext(device=args.device)
                t0 = time.perf_counter()
                out = task.evaluate(model, seed=seed)
                secs[trainer] += time.perf_counter() - t0
                for s, v in _values(out, PROBE_SUBSETS).items():
                    per[trainer][s].append(v)
                cs[trainer].append(next(iter(out.counts["fitted"]["logreg"].values()))["C"])
            print(f"{name} seed {seed}: " + "; ".join(
                f"{s} sklearn {per['sklearn'][s][-1]:.4f} torch {per['torch'][s][-1]:.4f}" for s in PROBE_SUBSETS),
                flush=True)
        same_c = sum(a == b for a, b in zip(cs["sklearn"], cs["torch"]))
        for s in PROBE_SUBSETS:
            extra = f"same C {same_c}/{args.seeds}" if s == "logreg" else ""
            rows.append(_row(name, s, per["sklearn"][s], per["torch"][s], extra))
        rows[-1]["extra"] = f"eval s sklearn {secs['sklearn']:.0f}, torch {secs['torch']:.0f}"
    return rows


def lexcomp(args, data: DataContext) -> list[dict]:
    from compeval.tasks.lexcomp import nets

    model = load_model(args.model, cache=EmbeddingCache(None))
    spec = ",".join([args.lexcomp, *([args.lexcomp_options] if args.lexcomp_options else [])])
    new_train = nets.train
    res = {"before": {}, "torch": {}}
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for which, fn in (("before", reference_train), ("torch", new_train)):
            nets.train = fn
            try:
                task = get_tasks(spec)[0]
                task.context = RunContext(device=args.device)
                task.load(data)
                out = task.evaluate(model, seed=seed)
            finally:
                nets.train = new_train
            for s in out.scores:
                if s.value is not None and s.subset not in ("human",) and not s.subset.lower().startswith("majority"):
                    res[which].setdefault(f"{s.subset} {s.metric}", []).append(s.value)
        print(f"{spec} seed {seed}: " + "; ".join(f"{k} before {res['before'][k][-1]:.4f} torch {v[-1]:.4f}"
                                                  for k, v in res["torch"].items()), flush=True)
    return [_row(spec, k, res["before"][k], v) for k, v in res["torch"].items() if len(res["before"].get(k, [])) == len(v)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="glove-6b-50d")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=0, help="seeds first..first+seeds-1 (split a run over processes)")
    ap.add_argument("--task", action="append", default=[], help="Ettinger tasks (default: all five)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--lexcomp", default="lexcomp-nc-literality", help="lexcomp task; '' to skip")
    ap.add_argument("--lexcomp-options", default="encoders=none+bilstm,layers=top")
    ap.add_argument("--skip-probing", action="store_true")
    ap.add_argument("--json", default="")
    ap.add_argument("--summarise", nargs="+", default=[], metavar="LOG", help="only print the table from run logs")
    args = ap.parse_args()
    data = DataContext(os.environ.get("COMPEVAL_DATA_DIR"), download=False)
    if args.summarise:
        _table(summarise(args.summarise))
        return
    print(f"model {args.model}; seeds {args.first_seed}..{args.first_seed + args.seeds - 1}; device {args.device}; "
          f"torch threads {torch.get_num_threads()}; load average {os.getloadavg()[0]:.1f}", flush=True)
    t0 = time.perf_counter()
    rows = [] if args.skip_probing else probing(args, data)
    if args.lexcomp:
        rows += lexcomp(args, data)
    _table(rows)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s wall")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


def summarise(paths: list[str]) -> list[dict]:
    """The table from the per-seed lines of several runs' logs (a run split over processes by seed); a seed
    seen twice counts once."""
    seen: dict[tuple[str, int], dict[str, tuple[float, float]]] = {}
    line_re = re.compile(r"^(\S+) seed (\d+): (.*)$")
    pair_re = re.compile(r"^(.+) (?:sklearn|before) (\S+) torch (\S+)$")
    for path in paths:
        for line in open(path):
            m = line_re.match(line.strip())
            if m:
                pairs = [pair_re.match(part) for part in m[3].split("; ")]
                seen[(m[1], int(m[2]))] = {p[1]: (float(p[2]), float(p[3])) for p in pairs if p}
    rows = []
    for task in dict.fromkeys(t for t, _ in sorted(seen)):
        seeds = sorted(sd for t, sd in seen if t == task)
        for subset in seen[(task, seeds[0])]:
            vals = [seen[(task, sd)][subset] for sd in seeds if subset in seen[(task, sd)]]
            rows.append(_row(task, subset, [a for a, _ in vals], [b for _, b in vals],
                             f"seeds {','.join(map(str, seeds))}"))
    return rows


def _table(rows: list[dict]) -> None:
    print(f"\n| task | subset | seeds | reference (sklearn / loop before) | torch | torch − reference | SE | note |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['task']} | {r['subset']} | {r['seeds']} | {r['reference']:.4f} | {r['torch']:.4f} | "
              f"{r['diff']:+.4f} | {r['se']:.4f} | {r['extra']} |")


if __name__ == "__main__":
    main()
