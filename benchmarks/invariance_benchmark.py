"""Run the invariance suite (Task 1 AUC, Task 2 normalised rank) for several models; print tables.

    python benchmarks/invariance_benchmark.py                       # overlap, GloVe mean, MiniLM, mixed
    python benchmarks/invariance_benchmark.py --models dist:/tmp/dist/ml,compose=add dist:/tmp/dist/ml,compose=mult
    python benchmarks/invariance_benchmark.py --json /tmp/inv.json  # also save every score

Rows are subsets (all, per construction, per negative type); columns are models; each cell is the
value with its 95% bootstrap interval. Generated sets use the task defaults unless options are given.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

DEFAULT_MODELS = ["overlap", "glove-6b-50d", "all-MiniLM-L6-v2", "mixed:overlap+all-MiniLM-L6-v2"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=DEFAULT_MODELS)
    ap.add_argument("--relation-task", default="invariance-relation")
    ap.add_argument("--qa-task", default="invariance-qa")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="write every score here")
    args = ap.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    from compeval.cache.cached import EmbeddingCache
    from compeval.data.registry import DataContext
    from compeval.models.registry import load_model
    from compeval.tasks.registry import get_tasks

    tasks = get_tasks(args.relation_task) + get_tasks(args.qa_task)
    for t in tasks:
        t.load(DataContext())
    cache = EmbeddingCache(None)
    table: dict[str, dict[str, dict[str, dict]]] = {t.name: {} for t in tasks}
    counts: dict[str, dict] = {}
    names: dict[str, str] = {}
    for spec in args.models:
        model = load_model(spec, cache=cache)
        names[spec] = model.config.display
        for t in tasks:
            start = time.perf_counter()
            out = t.evaluate(model, seed=args.seed)
            seconds = time.perf_counter() - start
            table[t.name][spec] = {s.subset: s.model_dump() for s in out.scores if not s.subset.startswith("group=")}
            counts[t.name] = out.counts
            table[t.name][spec]["_missing"] = {"value": out.counts.get("missing_scores")}
            print(f"[{spec} × {t.name}: {seconds:.1f} s]", file=sys.stderr)
    for t in tasks:
        metric = t.metadata.main_metric
        print(f"\n## {t.name} ({metric}; mean with 95% bootstrap interval)")
        subsets = [s for s in dict.fromkeys(sub for per_model in table[t.name].values() for sub in per_model)
                   if s != "_missing"]
        width = max(len(s) for s in subsets) + 2
        print("subset".ljust(width) + " | " + " | ".join(names[m][:26].ljust(26) for m in args.models))
        for sub in subsets:
            cells = []
            for m in args.models:
                s = table[t.name][m].get(sub)
                if s is None or s["value"] is None:
                    cells.append("–".ljust(26))
                else:
                    ci = f"[{s['ci_low']:.3f}, {s['ci_high']:.3f}]" if s["ci_low"] is not None else ""
                    cells.append(f"{s['value']:.3f} {ci} n={s['n']}".ljust(26))
            print(sub.ljust(width) + " | " + " | ".join(cells))
        print("missing scores: " + ", ".join(f"{names[m]}={table[t.name][m]['_missing']['value']}" for m in args.models))
        c = counts[t.name]
        keep = {k: v for k, v in c.items() if k not in ("bootstrap_method",)}
        print("counts:", json.dumps(keep))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scores": table, "counts": counts}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
