"""The Ray executor against the local one on the same grid (a benchmark script, not a test).

Runs the grid once with each executor, each into a fresh results folder with a fresh (empty) embedding
cache, and prints wall times, the Ray / local ratio, the text counters of both runs, and whether the
results are identical (everything but timings, dates, cache counters and the environment). The Ray wall
time includes starting the local cluster (reported apart too) unless --ray-address joins a running one.
The machine may be shared and noisy: compare ratios within one invocation.

    COMPEVAL_DATA_DIR=../shared/data python benchmarks/executor_benchmark.py
    python benchmarks/executor_benchmark.py -m glove-6b-50d -t sts --ray-cpus 4
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from compeval.runner import run

MODELS = ["glove-6b-50d", "all-MiniLM-L6-v2"]
# One cheap task per landed suite (the grid of tests/scale).
GRID = [
    "ks2013,bootstrap=200",
    "modifiers-test3,n_resamples=200",
    "probe-has-x,n_train=200,n_test=100,classifiers=logreg",
    "invariance-relation,pairs_per_relation=2,bootstrap=200",
    "minimal-pairs,n_bases=10,bootstrap=200",
    "lexcomp-nc-literality,baseline_only=true",
]
_VOLATILE = {"started_at", "environment", "cache", "token_cache"}


def _stable(x):
    if isinstance(x, dict):
        return {k: _stable(v) for k, v in x.items() if k not in _VOLATILE and not k.endswith("seconds")}
    if isinstance(x, list):
        return [_stable(v) for v in x]
    return x


def differences(a: Path, b: Path) -> list[str]:
    fa = sorted(p.relative_to(a) for p in a.glob("*/*") if p.is_file())
    fb = sorted(p.relative_to(b) for p in b.glob("*/*") if p.is_file())
    if fa != fb:
        return ["different files"]
    out = []
    for rel in fa:
        if rel.suffix == ".json":
            if _stable(json.loads((a / rel).read_text())) != _stable(json.loads((b / rel).read_text())):
                out.append(str(rel))
        elif (a / rel).read_bytes() != (b / rel).read_bytes():
            out.append(str(rel))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", action="append", help="model spec (repeatable); default: the two packaged")
    ap.add_argument("-t", "--task", action="append", help="task or suite (repeatable); default: one per suite")
    ap.add_argument("--ray-address", default=None, help="join this Ray cluster instead of starting a local one")
    ap.add_argument("--ray-cpus", type=int, default=None, help="CPUs of the local Ray cluster (default: all)")
    ap.add_argument("--cpus-per-job", type=float, default=1.0)
    args = ap.parse_args()
    models, tasks = args.model or MODELS, args.task or GRID

    import ray

    from compeval.runner.ray_executor import RayExecutor

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        local = run(models, tasks, tmp / "local", cache_dir=tmp / "cache-local")
        local_wall = time.perf_counter() - t0

        t0 = time.perf_counter()
        if args.ray_address:
            ray.init(address=args.ray_address, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address="local", num_cpus=args.ray_cpus, include_dashboard=False, log_to_driver=False,
                     resources={"api": 1})
        startup = time.perf_counter() - t0
        cluster_cpus = ray.cluster_resources().get("CPU", 0)
        try:
            t1 = time.perf_counter()
            remote = run(models, tasks, tmp / "ray", cache_dir=tmp / "cache-ray",
                         executor=RayExecutor(cpus_per_job=args.cpus_per_job))
            ray_jobs_wall = time.perf_counter() - t1
        finally:
            ray.shutdown()
        ray_wall = startup + ray_jobs_wall
        diffs = differences(tmp / "local", tmp / "ray")

    jobs = len(local.outcomes)
    print(f"grid                      {len(models)} model(s) x {len(tasks)} task spec(s) = {jobs} job(s)")
    print(f"machine                   {os.cpu_count()} CPU(s); Ray cluster {cluster_cpus:g} CPU(s), "
          f"{args.cpus_per_job:g} per job; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    for name, s in (("local", local), ("ray", remote)):
        failed = len(s.failed)
        print(f"{name:5} texts               requested {s.requested}, unique {s.unique}, encoded {s.encoded}; "
              f"load {s.load_seconds:.1f} s, encoder {s.encode_seconds:.1f} s; {failed} failed")
    print(f"local wall                {local_wall:8.2f} s")
    print(f"ray cluster start         {startup:8.2f} s")
    print(f"ray wall (jobs only)      {ray_jobs_wall:8.2f} s")
    print(f"ray wall (with start)     {ray_wall:8.2f} s")
    print(f"ratio ray/local           {ray_wall / local_wall:8.3f}   (jobs only: {ray_jobs_wall / local_wall:.3f})")
    print(f"results identical         {'yes' if not diffs else 'NO: ' + ', '.join(diffs)}")


if __name__ == "__main__":
    main()
