"""Where the time goes when the packaged MiniLM runs the full default suite (a script, not a test).

Three phases, each in its own process so that peak memory is per phase:

1. cold: empty embedding cache, empty results folder;
2. warm: the same cache, a new results folder (every task is evaluated again, no text is encoded);
3. resume: the cold run's results folder again (every job is already there and is skipped).

For each: wall time of ``run()``, weight loading, encoder time, task evaluation time (metrics,
bootstrap, the probing classifiers: the methods themselves), and the harness time left over
(planning, deduplication, cache look-ups and writes, result files), texts requested / unique /
encoded, peak resident memory. Ratios are within one invocation: the machine is shared and noisy.

    COMPEVAL_DATA_DIR=../shared/data python benchmarks/grid_benchmark.py [--model all-MiniLM-L6-v2]
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def phase(model: str, output_dir: str, cache_dir: str, tasks: list[str] | None) -> None:
    """One run in this process; prints a JSON line with its figures."""
    from compeval.cli import _default_tasks
    from compeval.runner import run

    tasks = tasks or _default_tasks(None)
    t0 = time.perf_counter()
    s = run([model], tasks, output_dir, cache_dir=cache_dir)
    wall = time.perf_counter() - t0
    evaluation = sum(o.seconds for o in s.outcomes if o.status == "done")
    print(json.dumps({
        "tasks": len(tasks), "done": sum(o.status == "done" for o in s.outcomes),
        "skipped": sum(o.status == "skipped" for o in s.outcomes), "failed": len(s.failed),
        "items": s.items, "wall": wall, "load": s.load_seconds, "encoder": s.encode_seconds,
        "evaluation": evaluation, "harness": wall - s.load_seconds - s.encode_seconds - evaluation,
        "requested": s.requested, "unique": s.unique, "encoded": s.encoded, "from_cache": s.from_cache,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }))


def _child(model: str, output_dir: Path, cache_dir: Path, tasks: list[str] | None) -> dict:
    cmd = [sys.executable, __file__, "--phase", "--model", model, "--output-dir", str(output_dir),
           "--cache-dir", str(cache_dir)]
    for t in tasks or []:
        cmd += ["--task", t]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"benchmark phase failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--phase", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--output-dir")
    ap.add_argument("--cache-dir")
    ap.add_argument("--task", action="append", help="task or suite (repeatable); default: the default run's tasks")
    args = ap.parse_args()
    if args.phase:
        phase(args.model, args.output_dir, args.cache_dir, args.task)
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cold = _child(args.model, tmp / "cold", tmp / "cache", args.task)
        warm = _child(args.model, tmp / "warm", tmp / "cache", args.task)
        resume = _child(args.model, tmp / "cold", tmp / "cache", args.task)
    print(f"model {args.model}: {cold['tasks']} tasks, {cold['items']} items scored")
    print(f"{'':28}{'cold':>10}{'warm':>10}{'resume':>10}")
    for key, label in (("wall", "wall (s)"), ("load", "weights load (s)"), ("encoder", "encoder (s)"),
                       ("evaluation", "task evaluation (s)"), ("harness", "harness (s)"),
                       ("requested", "texts requested"), ("unique", "texts unique"), ("encoded", "texts encoded"),
                       ("from_cache", "served from disk cache"), ("done", "jobs run"), ("skipped", "jobs skipped"),
                       ("failed", "jobs failed"), ("peak_mb", "peak memory (MB)")):
        print(f"{label:<28}" + "".join(f"{p[key]:>10.1f}" if isinstance(p[key], float) else f"{p[key]:>10}"
                                       for p in (cold, warm, resume)))
    print(f"harness overhead / encoder time (cold)   {cold['harness'] / cold['encoder']:.3f}   (target <= 0.05)")
    print(f"texts encoded == unique (cold)           {cold['encoded'] == cold['unique']}")
    print(f"warm re-run wall / cold wall             {warm['wall'] / cold['wall']:.3f}   "
          f"(all tasks evaluated again from cached vectors)")
    print(f"warm re-run (wall - evaluation) / cold   {(warm['wall'] - warm['evaluation']) / cold['wall']:.3f}   "
          "(the cached re-run's own cost, target <= 0.05)")
    print(f"resumed re-run wall / cold wall          {resume['wall'] / cold['wall']:.3f}   (every job skipped)")


if __name__ == "__main__":
    main()
