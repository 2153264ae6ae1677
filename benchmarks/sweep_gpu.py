"""GPU targets of the sweep: the pinned sweep's plan total on this GPU's device class, and measured
texts/s of an encoder and a 7B decoder in bf16, token-budget batching against fixed batches of 32.
Prints "no GPU" and exits 0 where CUDA is not available.

    PYTHONPATH=src python benchmarks/sweep_gpu.py [--encoder BAAI/bge-base-en-v1.5] [--decoder intfloat/e5-mistral-7b-instruct]

The models must be in the Hugging Face cache (or reachable); the texts are STS3k's (COMPEVAL_DATA_DIR) or,
without it, the generated invariance-qa task's.
"""
from __future__ import annotations

import argparse
import os
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--encoder", default="BAAI/bge-base-en-v1.5")
    ap.add_argument("--decoder", default="intfloat/e5-mistral-7b-instruct")
    ap.add_argument("--device-class", default="h100")
    args = ap.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("no GPU: CUDA is not available on this machine; the GPU rows (plan total on a GPU, texts/s of an "
              "encoder and a 7B decoder, token-budget vs fixed batches) were not measured")
        return 0
    from compeval.models.batching import Budget
    from compeval.models.registry import load_model
    from compeval.runner.cost import format_plan, plan_costs, task_texts

    task = "sts3k" if os.environ.get("COMPEVAL_DATA_DIR") else "invariance-qa"
    print(f"GPU: {torch.cuda.get_device_name(0)}; texts: {task}")
    texts, _, _ = task_texts([task], None)
    from compeval.models.model_lists import expand_models

    print(format_plan(plan_costs(expand_models(["compeval:sweep"]), [task], device=args.device_class)))
    for spec in (args.encoder, args.decoder):
        for label, budget in (("fixed 32 texts", Budget(10**9, max_texts=32)), ("token budget", None)):
            model = load_model(f"{spec},dtype=bfloat16,device=cuda")
            if budget is not None:
                model.budget = budget
            model.load()
            model.encode(texts[:64])
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            model.encode(texts)
            torch.cuda.synchronize()
            dt = time.perf_counter() - t0
            print(f"{spec} [{label}, {model.budget.settings()}]: {len(texts) / dt:,.0f} texts/s")
            model.close()
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
