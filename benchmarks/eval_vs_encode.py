"""The default run's trained-head tasks for one model: encoding seconds against evaluation seconds, on the
machine as it is and with one core kept busy by a busy-loop process this script starts and stops.

Issue 36's target: evaluation ≤ 0.5 × encoding for all-MiniLM-L6-v2, in both conditions. The tasks are the
default run's tasks that train heads (the probing suite; ``--task`` to pick others). Per condition:

- encode: the tasks' unique texts through the model with an in-memory cache (weights loaded and 256
  texts encoded first, outside the timing); with ``--encode-sample N`` only N texts are timed and the
  seconds scaled to all of them (the sample is spread over the tasks).
- evaluate: every task's ``evaluate`` from vectors already in memory, as the runner calls it.

Wall and process CPU seconds are printed, with the 1-minute load average beside each figure: the machine
may be shared, and the load says how much. Ratios are within one condition of one run.

``--costs`` measures instead the figures each task declares as its ``eval_cost`` (``--plan`` counts them):
one ``evaluate`` of every default-run task at width 50 and 384, in process CPU seconds (on a quiet 2-core
machine a one-thread head's wall time; under load the fairer figure). Tasks that train heads are measured
on glove-6b-50d and all-MiniLM-L6-v2 (a head's iterations depend on the vectors), the others on seeded
random vectors of those widths (their cost does not depend on what the vectors mean); vectors come from
``--cache-dir`` when given.

    COMPEVAL_DATA_DIR=../shared/data nice python benchmarks/eval_vs_encode.py \\
        [--model all-MiniLM-L6-v2] [--task ettinger2018-sr …] [--encode-sample 2000] [--conditions quiet,busy]
    COMPEVAL_DATA_DIR=../shared/data nice python benchmarks/eval_vs_encode.py --costs [--cache-dir /tmp/c]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

from compeval.cache.cached import EmbeddingCache
from compeval.context import RunContext
from compeval.data.registry import DataContext
from compeval.models.registry import load_model
from compeval.tasks.registry import TASKS, discover, get_tasks


def head_tasks() -> list[str]:
    """The default run's tasks that train heads: those with a ``trainer`` option."""
    discover()
    return sorted(n for n, c in TASKS.items() if c.default_run and "trainer" in c.Options.flat_fields())


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


class BusyCore:
    """A second process spinning in a Python loop for as long as the ``with`` block runs."""

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(2.0)  # let it reach the scheduler's steady state
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


def measure(model_spec: str, names: list[str], data: DataContext, sample: int, seed: int,
            cache_dir: str | None) -> dict:
    tasks = []
    for name in names:
        task = get_tasks(name)[0]
        task.context = RunContext(device="cpu")
        task.load(data)
        tasks.append(task)
    texts = list(dict.fromkeys(t for task in tasks for t in task.texts()))
    model = load_model(model_spec, cache=EmbeddingCache(None))
    # weights loaded, and kernels for the usual batch shapes built on first use, outside the timing
    model.encode(texts[:256])
    rest = texts[256:]
    timed = rest if not sample or sample >= len(rest) else [rest[i] for i in
                                                             np.linspace(0, len(rest) - 1, sample).astype(int)]
    w, c = time.perf_counter(), time.process_time()
    model.encode(timed)
    scale = len(rest) / len(timed)
    enc_w, enc_c = (time.perf_counter() - w) * scale, (time.process_time() - c) * scale
    enc_load = load()
    if cache_dir:  # the vectors of all the texts from a disk cache (filled once), untimed
        model = load_model(model_spec, cache=EmbeddingCache(cache_dir))
    model.encode(texts)  # the rest, untimed: evaluation reads memory only
    rows = []
    for task in tasks:
        w, c = time.perf_counter(), time.process_time()
        out = task.evaluate(model, seed=seed)
        ev_w, ev_c = time.perf_counter() - w, time.process_time() - c
        main = next((s.value for s in out.scores if s.subset == task.metadata.main_subset
                     and s.metric == task.metadata.main_metric), None)
        rows.append((task.name, ev_w, ev_c, load(), main))
        print(f"  {task.name:24s} evaluate {ev_w:7.1f}s wall {ev_c:7.1f}s cpu  [{rows[-1][3]}]  main {main}",
              flush=True)
    return dict(texts=len(texts), timed=len(timed), enc_w=enc_w, enc_c=enc_c, enc_load=enc_load, rows=rows)


def costs(names: list[str], data: DataContext, cache_dir: str | None, seed: int, widths: list[int]) -> None:
    """Print every task's measured ``EvalCost`` (process CPU seconds of one ``evaluate``) at ``widths``."""
    heads = set(head_tasks())
    models = {}
    for name in names:
        specs = [({50: "glove-6b-50d", 384: "all-MiniLM-L6-v2"} if name in heads else
                  {50: "random,dim=50", 384: "random,dim=384"})[w] for w in widths]
        figures = []
        for spec in specs:
            if spec not in models:
                models[spec] = load_model(spec, cache=EmbeddingCache(cache_dir))
            task = get_tasks(name)[0]
            task.context = RunContext(device="cpu", cache_dir=cache_dir)
            task.load(data)
            models[spec].encode(list(dict.fromkeys(task.texts())) or ["warm-up"])
            c = time.process_time()
            task.evaluate(models[spec], seed=seed)
            figures.append(time.process_time() - c)
        print(f"{name:24s} eval_cost = EvalCost({', '.join(f'at_{w}={x:.3g}' for w, x in zip(widths, figures))})  "
              f"[{load()}]", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--task", action="append", default=[], help="tasks instead of the default run's head tasks")
    ap.add_argument("--encode-sample", type=int, default=0, help="time this many texts, scaled to all (0: all)")
    ap.add_argument("--conditions", default="quiet,busy", help="quiet (the machine as it is) and/or busy "
                                                               "(plus one busy-loop process)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--costs", action="store_true", help="print each default-run task's EvalCost instead")
    ap.add_argument("--widths", default="50,384", help="--costs: the widths to measure (50 and/or 384)")
    ap.add_argument("--cache-dir", default=None, help="an embedding cache folder for the vectors evaluation "
                    "reads (the timed encoding never uses it); else memory only")
    args = ap.parse_args()
    import torch

    data = DataContext(os.environ.get("COMPEVAL_DATA_DIR"), download=False)
    if args.costs:
        discover()
        return costs(args.task or sorted(n for n, c in TASKS.items() if c.default_run), data, args.cache_dir,
                     args.seed, [int(w) for w in args.widths.split(",")])
    names = args.task or head_tasks()
    print(f"model {args.model}; tasks {', '.join(names)}; torch threads {torch.get_num_threads()} on "
          f"{os.cpu_count()} CPUs; {load()}", flush=True)
    summary = []
    for condition in args.conditions.split(","):
        print(f"{condition}:", flush=True)
        if condition == "busy":
            with BusyCore():
                r = measure(args.model, names, data, args.encode_sample, args.seed, args.cache_dir)
        elif condition == "quiet":
            r = measure(args.model, names, data, args.encode_sample, args.seed, args.cache_dir)
        else:
            raise SystemExit(f"unknown condition {condition!r}: quiet or busy")
        ev_w = sum(x[1] for x in r["rows"])
        ev_c = sum(x[2] for x in r["rows"])
        print(f"  encode {r['texts']:,} texts ({r['timed']:,} timed): {r['enc_w']:.1f}s wall {r['enc_c']:.1f}s cpu "
              f"[{r['enc_load']}]", flush=True)
        summary.append((condition, r["enc_w"], ev_w, r["enc_c"], ev_c, r["enc_load"], r["rows"][-1][3]))
    print("\n| condition | encode s (wall) | evaluate s (wall) | evaluation / encoding | cpu s: encode / evaluate "
          "| load at encode / at last evaluate |")
    print("|---|---|---|---|---|---|")
    for cond, ew, vw, ec, vc, l1, l2 in summary:
        print(f"| {cond} | {ew:.1f} | {vw:.1f} | {vw / ew:.2f} | {ec:.1f} / {vc:.1f} | {l1} / {l2} |")


if __name__ == "__main__":
    main()
