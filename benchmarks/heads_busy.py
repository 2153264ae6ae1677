"""Trained heads at the paper's protocol, on a quiet machine and with one core busy: ``ettinger2018-sr`` and
``ettinger2018-order`` on MiniLM at ``mlp_max_iter=700`` (their default), each condition a fresh
``compeval run`` with a fresh cache, in one invocation of this script.

Per condition it prints each job's seconds (from its result: the model's part and its heads), their sum,
and the span from the first job's start to the last job's end. The span is what a user waits for once
the vectors are there; it equals the sum when jobs run one at a time, and is shorter when their heads
overlap (``Task.staged``, docs/architecture.md "CPU threads"). ``--src`` runs another checkout's
``src`` (the code before a change), with the same data and model.

    COMPEVAL_DATA_DIR=../shared/data python benchmarks/heads_busy.py [--src OTHER/src] [--busy-only] \\
        [--task ettinger2018-sr --task ettinger2018-order] [--model all-MiniLM-L6-v2] [-- --threads 1]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from encode_vs_anchor import BusyCore, load  # noqa: E402

TASKS = ("ettinger2018-sr", "ettinger2018-order")


def one_run(src: Path, model: str, tasks: list[str], extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="compeval-heads-") as tmp:
        out, cache = Path(tmp) / "out", Path(tmp) / "cache"
        cmd = [sys.executable, "-m", "compeval", "run", "-m", model, *[a for t in tasks for a in ("-t", t)],
               "-o", str(out), "--cache-dir", str(cache), "--offline", "--no-report", *extra]
        env = {**os.environ, "PYTHONPATH": str(src), "HF_HUB_OFFLINE": "1"}
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"heads_busy: {' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
        jobs = {}
        for path in out.glob("*/*.json"):
            data = json.loads(path.read_text())
            start = datetime.fromisoformat(data["started_at"].replace("Z", "+00:00")).timestamp()
            jobs[data["task"]["name"]] = (start, data["duration_seconds"], data["main_score"],
                                          data["environment"].get("threads_used", "-"))
    span = max(s + d for s, d, _, _ in jobs.values()) - min(s for s, _, _, _ in jobs.values())
    return {"jobs": jobs, "sum": sum(d for _, d, _, _ in jobs.values()), "span": span, "wall": wall}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=Path(__file__).resolve().parents[1] / "src",
                    help="the compeval source folder to run (default: this checkout's)")
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--task", action="append", default=None, help=f"default: {' '.join(TASKS)}")
    ap.add_argument("--busy-only", action="store_true", help="only the condition with one core busy")
    ap.add_argument("extra", nargs="*", help="more options for compeval run (after --)")
    args = ap.parse_args(argv)
    tasks = args.task or list(TASKS)
    print(f"heads_busy, {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}: src {args.src}, model "
          f"{args.model}, tasks {', '.join(tasks)}, extra {' '.join(args.extra) or '-'}; {os.cpu_count()} CPUs",
          flush=True)
    for cond in (("busy",) if args.busy_only else ("quiet", "busy")):
        before = load()
        if cond == "busy":
            with BusyCore():
                found = one_run(args.src, args.model, tasks, args.extra)
        else:
            found = one_run(args.src, args.model, tasks, args.extra)
        jobs = ", ".join(f"{t} {d:.1f} s (main {m:.3f}, threads {th})" for t, (_, d, m, th) in found["jobs"].items())
        print(f"{cond:5}  load {before:4.1f}  jobs: {jobs}", flush=True)
        print(f"{'':5}  job seconds summed {found['sum']:.1f}, first start to last end {found['span']:.1f}, "
              f"whole command {found['wall']:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
