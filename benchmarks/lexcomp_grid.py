"""Run the lexcomp Embed-Encode-Predict grid (models × the four tasks with text) and print a summary.

Each model × task job is one ``compeval run`` process, single-threaded (the small networks gain nothing
from a second thread); ``--jobs N`` runs N of them at once, largest first (phrase type, the contextual
model). VPC / LVC need a BNC copy and are not in the default grid.

    COMPEVAL_DATA_DIR=../shared/data python benchmarks/lexcomp_grid.py run \
        --model static:glove-6b-50d --model all-MiniLM-L6-v2 --layers top --jobs 2
    python benchmarks/lexcomp_grid.py summary --output-dir /tmp/lexcomp_results/grid

Wall time of each job and of the whole grid is printed; per-setting training seconds are in each result's
scores (subset ``layer+encoder``) and in the summary.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

TASKS = ("lexcomp-nc-literality", "lexcomp-nc-relations", "lexcomp-an-attributes", "lexcomp-phrase-type")


def _job(model: str, task: str, opts: str, args, env: dict) -> str:
    t0 = time.perf_counter()
    cmd = ["compeval", "run", "--model", model, "--task", f"{task},{opts}", "--output-dir", args.output_dir,
           "--data-dir", env.get("COMPEVAL_DATA_DIR", "../shared/data")]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    status = "ok" if proc.returncode == 0 else f"FAILED\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    return f"{model} {task}: {time.perf_counter() - t0:.0f}s wall {status}"


def run(args) -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    opts = (f"encoders={args.encoders},layers={args.layers},max_epochs={args.max_epochs},"
            f"patience={args.patience},batch_size={args.batch_size}")
    tasks = args.tasks.split("+")
    # Largest first so that the pool does not end on one long job: phrase type, then contextual models.
    jobs = sorted(((m, t) for m in args.model for t in tasks),
                  key=lambda mt: (mt[1] != "lexcomp-phrase-type", mt[0].startswith("static:"), tasks.index(mt[1])))
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for done in as_completed([pool.submit(_job, m, t, opts, args, env) for m, t in jobs]):
            print(done.result(), flush=True)
    print(f"whole grid ({len(args.model)} models x {len(tasks)} tasks, {args.jobs} at once): "
          f"{time.perf_counter() - t0:.0f}s wall", flush=True)


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
    r.add_argument("--model", action="append", required=True, help="repeatable")
    r.add_argument("--tasks", default="+".join(TASKS))
    r.add_argument("--encoders", default="none+bilstm+attention")
    r.add_argument("--layers", default="top+mix")
    r.add_argument("--max-epochs", type=int, default=500)
    r.add_argument("--patience", type=int, default=20)
    r.add_argument("--batch-size", type=int, default=32)
    r.add_argument("--output-dir", default="/tmp/lexcomp_results/grid")
    r.add_argument("--jobs", type=int, default=1, help="jobs at once (one core each)")
    s = sub.add_parser("summary")
    s.add_argument("--output-dir", default="/tmp/lexcomp_results/grid")
    a = ap.parse_args()
    run(a) if a.cmd == "run" else summary(a)


if __name__ == "__main__":
    main()
