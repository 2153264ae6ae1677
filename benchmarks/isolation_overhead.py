"""Isolation overhead per model: the same model × task jobs run in process and in an isolated worker
(``--isolate``: spawn, imports, re-planning, the worker's own cache handle, exit), on this machine.

    PYTHONPATH=src python benchmarks/isolation_overhead.py [--hub /tmp/compeval-sweep-demo/hub] [--n 3]

Uses the replica Hub cache that benchmarks/sweep_replicas.py builds. Overhead = isolated wall − in-process
wall per model (both weights loading included; the target is ≤ 5 s plus weight loading).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

TASK = "minimal-pairs,n_bases=3,bootstrap=50"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hub", type=Path, default=Path("/tmp/compeval-sweep-demo/hub"))
    ap.add_argument("--n", type=int, default=3)
    args = ap.parse_args()
    os.environ.update({"HF_HUB_CACHE": str(args.hub), "HF_HUB_OFFLINE": "1"})
    from compeval.models.model_lists import expand_models
    from compeval.runner import run

    specs = [s for s in expand_models(["compeval:sweep"]) if "/" in s.split(",")[0]][: args.n]
    run(specs[:1], [TASK], tempfile.mkdtemp(), cache_dir=None, progress=False, isolate=False)  # imports, warm
    rows = []
    for spec in specs:
        walls = {}
        for isolate in (False, True):
            out = tempfile.mkdtemp()
            t0 = time.perf_counter()
            s = run([spec], [TASK], out, cache_dir=None, progress=False, isolate=isolate)
            walls[isolate] = time.perf_counter() - t0
            assert not s.failed, [o.error for o in s.failed]
        rows.append((spec.split(",")[0], walls[False], walls[True]))
        print(f"{spec.split(',')[0]}: in process {walls[False]:.1f}s, isolated {walls[True]:.1f}s, "
              f"overhead {walls[True] - walls[False]:.1f}s", flush=True)
    mean = sum(i - p for _, p, i in rows) / len(rows)
    print(f"mean isolation overhead per model: {mean:.1f}s (load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
