"""Benchmark of the modifier suite (not a test): encoding vs metric time, strings, peak memory.

    OMP_NUM_THREADS=1 python benchmarks/modifiers_benchmark.py [--model all-MiniLM-L6-v2] [--task modifiers]

Encodes the union of every task's strings once (in memory, no disk cache, so it measures the model),
then times all metric computation after encoding (each task's evaluate, which reads the cached matrix).
Target: metrics <= 10% of encoding time.
"""
from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np


def string_references(tasks) -> int:
    """How many strings the comparisons use, repeats included (what a naive per-comparison encoder asks for)."""
    from compeval.tasks.modifiers.stimuli import PAD, build_stimuli

    s = build_stimuli()
    total = 0
    for task in tasks:
        if task.name == "modifiers-test1":
            total += len(s.phrase) + int((s.words != PAD).sum()) + int((s.parts != PAD).sum())
        elif task.name == "modifiers-test2":
            total += 61 * 60 * 66 * 4  # four "adj noun" phrases per case
        elif task.name == "modifiers-test3":
            total += int(s.is_an.sum()) * 3
        elif task.name == "modifiers-controls":
            total += sum(int((a != PAD).sum()) for a in (s.phrase, s.syn_phrase, s.words, s.syn_words,
                                                           s.parts, s.syn_parts))
    return total


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--task", default="modifiers")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import torch

    torch.set_num_threads(1)
    from compeval.cache.cached import EmbeddingCache
    from compeval.models.registry import load_model
    from compeval.tasks.registry import get_tasks

    cache = EmbeddingCache(None)
    model = load_model(args.model, cache=cache)
    tasks = get_tasks(args.task)
    t0 = time.perf_counter()
    for t in tasks:
        t.load(None)
    union = list(dict.fromkeys(x for t in tasks for x in t.texts()))
    gen_seconds = time.perf_counter() - t0

    t0 = time.perf_counter()
    model.encode(union)
    encode_seconds = time.perf_counter() - t0
    rss_after_encode = max_rss_mb()

    tracemalloc.start()
    metric_seconds = {}
    for t in tasks:
        t0 = time.perf_counter()
        out = t.evaluate(model, seed=args.seed)
        metric_seconds[t.name] = time.perf_counter() - t0
        main = next(s for s in out.scores if s.metric == t.metadata.main_metric and s.subset == t.metadata.main_subset)
        print(f"  {t.name:20s} {metric_seconds[t.name]:6.2f} s  {out.n_items:7d} cases  "
              f"main {t.metadata.main_subset} {t.metadata.main_metric} = {main.value:.4f}")
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    stats = cache.stats_for(model.config.id)
    total_metrics = sum(metric_seconds.values())
    print(f"model {model.config.display}; tasks {', '.join(t.name for t in tasks)}")
    print(f"stimulus generation        {gen_seconds:8.2f} s")
    print(f"strings used by comparisons {string_references(tasks):8d} (repeats included)")
    print(f"strings requested (cache)  {stats.requested:8d}  unique {stats.unique}  encoded {stats.encoded}")
    print(f"encoding time              {encode_seconds:8.2f} s  ({stats.encoded / encode_seconds:.0f} strings/s)")
    print(f"metric time (all tasks)    {total_metrics:8.2f} s  = {100 * total_metrics / encode_seconds:.1f}% of encoding")
    print(f"peak RSS after encoding    {rss_after_encode:8.0f} MB")
    print(f"peak RSS at end            {max_rss_mb():8.0f} MB")
    print(f"peak traced allocations during metrics {traced_peak / 2**20:8.0f} MB")
    print(f"target metrics <= 10% of encoding: {'met' if total_metrics <= 0.1 * encode_seconds else 'NOT met'}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
