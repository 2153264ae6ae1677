"""Harness overhead of the STS suite with the packaged MiniLM (a benchmark script, not a test).

Runs every STS task whose data is local, cold (empty cache) and then again warm, and prints encoder time,
weight-loading time, total wall time, texts requested / unique / encoded, and the harness overhead ratio
(total − encoder − load) / encoder. Ratios are measured within one run: the machine is shared and noisy.

    COMPEVAL_DATA_DIR=../shared/data python benchmarks/sts_benchmark.py
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

from compeval.runner import run


def main() -> None:
    tasks = ["sts"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        cold = run(["all-MiniLM-L6-v2"], tasks, tmp / "cold", cache_dir=tmp / "cache")
        cold_wall = time.perf_counter() - t0
        t0 = time.perf_counter()
        warm = run(["all-MiniLM-L6-v2"], tasks, tmp / "warm", cache_dir=tmp / "cache")
        warm_wall = time.perf_counter() - t0
    harness = cold_wall - cold.encode_seconds - cold.load_seconds
    print(f"tasks                     {', '.join(o.task for o in cold.outcomes)}")
    print(f"items scored              {cold.items}")
    print(f"texts requested           {cold.requested}")
    print(f"texts unique              {cold.unique}")
    print(f"texts encoded (cold)      {cold.encoded}")
    print(f"weights load time         {cold.load_seconds:8.2f} s")
    print(f"encoder time              {cold.encode_seconds:8.2f} s")
    print(f"total wall (cold)         {cold_wall:8.2f} s")
    print(f"harness time              {harness:8.2f} s")
    print(f"overhead (total-enc-load)/enc  {harness / cold.encode_seconds:6.3f}   (target <= 0.10)")
    print(f"overhead incl. load            {(cold_wall - cold.encode_seconds) / cold.encode_seconds:6.3f}")
    print(f"warm re-run: encoded {warm.encoded}, served from disk {warm.from_cache}, wall {warm_wall:.2f} s "
          f"= {warm_wall / cold_wall:.3f} of cold")


if __name__ == "__main__":
    main()
