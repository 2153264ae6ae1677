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
import os
import sys
import tempfile
import time
from pathlib import Path

from compeval.results.compare import differences
from compeval.runner import run

# The default grid is the Ray tests' grid: one cheap task per landed suite.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "scale"))
from grid_support import GRID, MODELS  # noqa: E402


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
