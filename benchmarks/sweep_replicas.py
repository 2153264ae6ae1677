"""The pinned sweep (``compeval:sweep``) over tiny random-weight replicas, isolated, with three injected
faults (a forward that calls os._exit, one that raises CUDA out-of-memory above a token budget, one that
hangs), through the CLI as a user runs it. Prints the end-of-run summary and the isolation overhead.

    PYTHONPATH=src python benchmarks/sweep_replicas.py [--workdir /tmp/compeval-sweep-demo] [--timeout 120]

Isolation overhead per model = a model's worker wall time (spawn, imports, planning, loading, encoding,
evaluation, exit) minus the same model's jobs run in process (``--no-isolate``); both on this machine.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "sweep"))
TASK = "minimal-pairs,n_bases=3,bootstrap=50"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/compeval-sweep-demo"))
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--limit", type=int, default=None, help="only the first N pinned models")
    args = ap.parse_args()
    from sweep_replicas import FAULTS, build_replica_cache, pinned_hub_specs

    work = args.workdir
    env = {**os.environ, "HF_HUB_CACHE": str(work / "hub"), "HF_HUB_OFFLINE": "1",
           "HF_MODULES_CACHE": str(work / "modules"), "PYTHONPATH": str(ROOT / "src")}
    os.environ.update({k: env[k] for k in ("HF_HUB_CACHE", "HF_HUB_OFFLINE", "HF_MODULES_CACHE")})
    pinned = pinned_hub_specs()[: args.limit]
    if not (work / "hub").is_dir():
        t0 = time.perf_counter()
        build_replica_cache(work, pinned)
        print(f"built {len(pinned)} replicas + {len(FAULTS)} fault replicas in {time.perf_counter() - t0:.0f}s",
              file=sys.stderr)
    specs = pinned + [f"{repo},trust_remote_code=true" for repo in FAULTS.values()]
    models_file = work / "models.txt"
    models_file.write_text("# the pinned sweep's Hub models, replicated, and three fault replicas\n"
                           + "\n".join(specs) + "\n")
    compeval = [sys.executable, "-m", "compeval"]
    cmd = compeval + ["run", "--models-file", str(models_file), "-t", TASK, "-o", str(work / "results"),
                      "--cache-dir", str(work / "cache"), "--isolate", "--model-timeout", f"{args.timeout:g}",
                      "--no-report"]
    print("$ compeval " + " ".join(cmd[3:]), flush=True)
    t0 = time.perf_counter()
    run = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    print(run.stderr[-6000:])
    print(run.stdout[-3000:])
    print(f"exit status {run.returncode}; wall {wall:.0f}s for {len(specs)} models "
          f"({wall / len(specs):.1f}s per model, the hang's {args.timeout:g}s timeout included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
