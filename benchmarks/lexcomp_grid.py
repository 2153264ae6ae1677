"""Run the lexcomp Embed-Encode-Predict grid for one or more models and print a summary table.

Usage (one process per model; each runs single-threaded):
    COMPEVAL_DATA_DIR=/work/shared/data python benchmarks/lexcomp_grid.py run \
        --model static:glove-6b-50d --encoders none+bilstm+attention --patience 5 --max-epochs 100
    python benchmarks/lexcomp_grid.py summary --output-dir /tmp/lexcomp_results/grid

The four tasks with text are run (VPC / LVC need a BNC copy). Wall time of the whole run is printed;
per-setting training seconds are in each result's scores (subset ``layer+encoder``).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import time

TASKS = ("lexcomp-nc-literality", "lexcomp-nc-relations", "lexcomp-an-attributes", "lexcomp-phrase-type")


def run(args) -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    opts = (f"encoders={args.encoders},layers={args.layers},max_epochs={args.max_epochs},"
            f"patience={args.patience},batch_size={args.batch_size}")
    t0 = time.perf_counter()
    for task in args.tasks.split("+"):
        t1 = time.perf_counter()
        cmd = ["compeval", "run", "--model", args.model, "--task", f"{task},{opts}", "--output-dir",
               args.output_dir, "--data-dir", env.get("COMPEVAL_DATA_DIR", "/work/shared/data")]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode:
            print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
        print(f"{args.model} {task}: {time.perf_counter() - t1:.0f}s wall", flush=True)
    print(f"{args.model}: whole grid {time.perf_counter() - t0:.0f}s wall", flush=True)


def summary(args) -> None:
    for f in sorted(glob.glob(os.path.join(args.output_dir, "*", "*.json"))):
        r = json.load(open(f))
        sc = {s["subset"]: s for s in r["scores"]}
        main = sc.get("all")
        metric = r["task"]["main_metric"]
        if main is None or main["value"] is None:
            continue
        d = main["details"]
        settings = "  ".join(f"{k}={v['value']:.3f}({v['details']['epochs']}ep,{v['details']['seconds']:.0f}s)"
                             for k, v in sc.items() if "+" in k)
        human = sc.get("human", {}).get("value")
        print(f"{r['model']['name']:<18} {r['task']['name']:<24} test {metric}={main['value']:.3f} "
              f"[{main['ci_low']:.3f}, {main['ci_high']:.3f}] chosen={d['layer']}+{d['encoder']} "
              f"(val {d.get('val_accuracy', d.get('val_span_f1')):.3f}) | majority={sc['majority']['value']:.3f} "
              f"({sc['majority']['details']['chosen']}) | human={human} | job {r['duration_seconds']:.0f}s")
        print(f"{'':<18} val by setting: {settings}")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--model", required=True)
    r.add_argument("--tasks", default="+".join(TASKS))
    r.add_argument("--encoders", default="none+bilstm+attention")
    r.add_argument("--layers", default="top+mix")
    r.add_argument("--max-epochs", type=int, default=500)
    r.add_argument("--patience", type=int, default=20)
    r.add_argument("--batch-size", type=int, default=32)
    r.add_argument("--output-dir", default="/tmp/lexcomp_results/grid")
    s = sub.add_parser("summary")
    s.add_argument("--output-dir", default="/tmp/lexcomp_results/grid")
    a = ap.parse_args()
    run(a) if a.cmd == "run" else summary(a)


if __name__ == "__main__":
    main()
