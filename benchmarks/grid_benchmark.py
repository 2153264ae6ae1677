"""Where the time goes when the packaged MiniLM runs the full default suite (a script, not a test).

Three phases, each in its own process so that peak memory is per phase:

1. cold: empty embedding cache, empty results folder;
2. warm: the same cache, a new results folder (every task is evaluated again, no text is encoded);
3. resume: the cold run's results folder again (every job is already there and is skipped).

For each: wall time of ``run()``, weight loading, encoder time, task loading (data files read, stimuli
generated, the tasks' own baselines fitted), task evaluation time (metrics, bootstrap, the probing
classifiers: the methods themselves), and the harness time left over (planning, deduplication, cache
look-ups and writes, result files), texts requested / unique / encoded, peak resident memory. The
libraries a run imports lazily (torch, transformers, spaCy, scikit-learn, SciPy) are imported first and
timed on their own row: a one-off cost of the process, not of the grid. Ratios are within one
invocation: the machine is shared and noisy.

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


LAZY_IMPORTS = ("torch", "transformers", "sentence_transformers", "spacy", "sklearn.linear_model",
                "sklearn.neural_network", "scipy.stats")


def phase(model: str, output_dir: str, cache_dir: str, tasks: list[str] | None) -> None:
    """One run in this process; prints a JSON line with its figures."""
    import importlib

    t0 = time.perf_counter()
    for name in LAZY_IMPORTS:
        importlib.import_module(name)
    from compeval.cli import _default_tasks
    from compeval.runner import run
    from compeval.tasks.registry import get_tasks

    tasks = tasks or _default_tasks(None)
    for t in tasks:
        get_tasks(t)  # imports the task modules
    imports = time.perf_counter() - t0
    t0 = time.perf_counter()
    s = run([model], tasks, output_dir, cache_dir=cache_dir)
    wall = time.perf_counter() - t0
    evaluation = sum(o.seconds for o in s.outcomes if o.status == "done")
    print(json.dumps({
        "tasks": len(s.outcomes), "done": sum(o.status == "done" for o in s.outcomes),
        "skipped": sum(o.status == "skipped" for o in s.outcomes), "failed": len(s.failed),
        "items": s.items, "imports": imports, "wall": wall, "load": s.load_seconds, "encoder": s.encode_seconds,
        "task_load": s.task_load_seconds, "evaluation": evaluation,
        "harness": wall - s.load_seconds - s.encode_seconds - s.task_load_seconds - evaluation,
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
    for key, label in (("imports", "library imports (s)"), ("wall", "wall of run() (s)"),
                       ("load", "weights load (s)"), ("encoder", "encoder (s)"), ("task_load", "task loading (s)"),
                       ("evaluation", "task evaluation (s)"), ("harness", "harness (s)"),
                       ("requested", "texts requested"), ("unique", "texts unique"), ("encoded", "texts encoded"),
                       ("from_cache", "served from disk cache"), ("done", "jobs run"), ("skipped", "jobs skipped"),
                       ("failed", "jobs failed"), ("peak_mb", "peak memory (MB)")):
        print(f"{label:<28}" + "".join(f"{p[key]:>10.1f}" if isinstance(p[key], float) else f"{p[key]:>10}"
                                       for p in (cold, warm, resume)))
    lines = [
        ("harness overhead / encoder time (cold)", f"{cold['harness'] / cold['encoder']:.3f}", "target <= 0.05"),
        ("(harness + task loading) / encoder (cold)", f"{(cold['harness'] + cold['task_load']) / cold['encoder']:.3f}",
         "the stricter reading"),
        ("texts encoded == unique (cold)", str(cold["encoded"] == cold["unique"]), ""),
        ("warm re-run wall / cold wall", f"{warm['wall'] / cold['wall']:.3f}", "every task evaluated again"),
        ("warm (wall - task loading - evaluation) / cold",
         f"{(warm['wall'] - warm['task_load'] - warm['evaluation']) / cold['wall']:.3f}",
         "the cached re-run's own cost, target <= 0.05"),
        ("resumed re-run wall / cold wall", f"{resume['wall'] / cold['wall']:.3f}", "every job skipped"),
    ]
    for label, value, note in lines:
        print(f"{label:<48}{value:>8}   {note}")


if __name__ == "__main__":
    main()
