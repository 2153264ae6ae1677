"""Encoding seconds vs evaluation seconds per task, with the torch trainer beside the scikit-learn one.

For each task: its unique texts are encoded once with an in-memory cache (``encode s``; with
``--encode-sample N`` only N texts are encoded and the time scaled to all of them, for a loaded machine),
then the task is evaluated from memory once per trainer (``trainer=sklearn`` and ``trainer=torch`` in the
same process, same vectors, same seed) and per device. Wall seconds and process CPU seconds are printed
(CPU seconds are the fairer figure when other jobs share the cores). Tasks without a ``trainer`` option
are evaluated once. Ratios evaluation/encoding are given per task and per suite. scikit-learn fits its
logistic regressions at its own default tolerance (``logreg_tol=1e-4``, the path before the torch
trainer) unless ``--option logreg_tol=…`` says otherwise; torch at the task's default.

    COMPEVAL_DATA_DIR=../shared/data python benchmarks/eval_benchmark.py --suite probing \\
        [--model all-MiniLM-L6-v2] [--trainers sklearn,torch] [--devices cpu,cuda] [--option mlp_max_iter=700] \\
        [--task ettinger2018-sr --task ettinger2018-order] [--encode-sample 256] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from compeval.cache.cached import EmbeddingCache
from compeval.context import RunContext
from compeval.data.registry import DataContext
from compeval.models.registry import load_model
from compeval.tasks.probing.classifiers import SKLEARN_DEFAULT_LOGREG
from compeval.tasks.registry import get_tasks


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def _ratio(evaluate: float, encode: float) -> str:
    """evaluation / encoding; "–" when the task encodes nothing itself (its texts come from another task)."""
    return f"{evaluate / encode:.2f}" if encode >= 0.05 else "–"


def _accepts(task_cls, option: str) -> bool:
    return option in task_cls.Options.flat_fields()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--suite", action="append", default=[], help="suite name(s); default probing")
    ap.add_argument("--task", action="append", default=[], help="task names instead of whole suites")
    ap.add_argument("--trainers", default="sklearn,torch")
    ap.add_argument("--devices", default="cpu", help="comma list; cuda is skipped when not present")
    ap.add_argument("--option", action="append", default=[], help="KEY=VALUE given to every task that takes it")
    ap.add_argument("--encode-sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    import torch

    devices = [d for d in args.devices.split(",") if d == "cpu" or (d.startswith("cuda") and torch.cuda.is_available())]
    names = args.task or [t.name for s in (args.suite or ["probing"]) for t in get_tasks(s)]
    data = DataContext(os.environ.get("COMPEVAL_DATA_DIR"), download=False)
    rows = []
    print(f"model {args.model}; torch threads {torch.get_num_threads()}; devices {devices}; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for name in names:
        cls = type(get_tasks(name)[0])
        opts = [o for o in args.option if _accepts(cls, o.split("=")[0])]
        cache = EmbeddingCache(None)
        model = load_model(args.model, cache=cache)
        task = get_tasks(",".join([name, *opts]))[0]
        task.load(data)
        texts = list(dict.fromkeys(task.texts()))
        if texts:
            sample = texts[: args.encode_sample] if args.encode_sample else texts
            model.encode(sample[:2])  # load weights outside the timing
            _, enc_w, enc_c = _timed(lambda: model.encode(sample[2:] if len(sample) > 2 else sample))
            scale = len(texts) / max(1, len(sample) - 2 if len(sample) > 2 else len(sample))
            enc_w, enc_c = enc_w * scale, enc_c * scale
            model.encode(texts)  # the rest, untimed, so evaluation reads memory only
        else:
            enc_w = enc_c = 0.0
        trainers = args.trainers.split(",") if _accepts(cls, "trainer") else ["-"]
        for device in devices:
            for trainer in trainers:
                baseline = ([f"logreg_tol={SKLEARN_DEFAULT_LOGREG.tol}"]
                            if trainer == "sklearn" and _accepts(cls, "logreg_tol")
                            and not any(o.startswith("logreg_tol=") for o in opts) else [])
                spec = ",".join([name, *opts, *baseline] + ([f"trainer={trainer}"] if trainer != "-" else []))
                t = get_tasks(spec)[0]
                t.load(data)
                t.context = RunContext(device=device)
                out, ev_w, ev_c = _timed(lambda: t.evaluate(model, seed=args.seed))
                main = next((s.value for s in out.scores if s.subset == t.metadata.main_subset
                             and s.metric == t.metadata.main_metric), None)
                row = dict(task=name, suite=t.metadata.suite, trainer=trainer, device=device, texts=len(texts),
                           encode_wall=enc_w, encode_cpu=enc_c, eval_wall=ev_w, eval_cpu=ev_c, main=main,
                           fitted=out.counts.get("fitted"))
                rows.append(row)
                print(f"{name:24s} {trainer:7s} {device:5s} encode {enc_w:7.1f}s wall {enc_c:7.1f}s cpu | "
                      f"evaluate {ev_w:7.1f}s wall {ev_c:7.1f}s cpu | ratio {_ratio(ev_w, enc_w):>6s} "
                      f"| main {main}", flush=True)
    print("\n| task | trainer | device | encode s | evaluate s (wall) | evaluate s (cpu) | eval/encode |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['task']} | {r['trainer']} | {r['device']} | {r['encode_wall']:.1f} | {r['eval_wall']:.1f} | "
              f"{r['eval_cpu']:.1f} | {_ratio(r['eval_wall'], r['encode_wall'])} |")
    print("\n| suite | trainer | device | encode s | evaluate s (wall) | eval/encode |")
    print("|---|---|---|---|---|---|")
    keys = sorted({(r["suite"], r["trainer"], r["device"]) for r in rows})
    for suite, trainer, device in keys:
        sel = [r for r in rows if (r["suite"], r["trainer"], r["device"]) == (suite, trainer, device)]
        enc = float(np.sum([r["encode_wall"] for r in sel]))
        ev = float(np.sum([r["eval_wall"] for r in sel]))
        print(f"| {suite} | {trainer} | {device} | {enc:.1f} | {ev:.1f} | {_ratio(ev, enc)} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1, default=str)


if __name__ == "__main__":
    main()
