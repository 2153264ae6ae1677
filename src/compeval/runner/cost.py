"""``compeval run … --plan``: what a sweep will cost, before any weights load.

Per model: the unique texts its tasks declare, their tokens (the model's own tokenizer files, truncated
at its maximum length, special tokens in: what the encoder sees), its parameters (the safetensors
headers of a local copy, else mteb's metadata), the forward FLOPs ≈ 2 × (parameters − embedding tables) ×
tokens (a table is a lookup, not a matrix product: MiniLM's word table is half its parameters), and the
minutes that takes at a sustained rate assumed per device kind (``DEVICE_FLOPS``), plus a fixed overhead
per batch (``BATCH_OVERHEAD_S``: tokenizing, launching, copying; what bounds a small encoder) times the
batches the family's default token budget and batch size make of those texts.

Evaluation (the heads trained, bootstraps, pair scoring) is counted from each task's measured cost
(``Task.eval_cost``, declared where the task lives: seconds on ``cpu-2core`` for a 50- and a 384-wide
model), at the model's vector width. Those figures hold for ``cpu-2core`` only: on another device kind
the plan shows evaluation as not estimated and says so. The device kind defaults to the one the run
would use (``default_plan_device``).

The estimate ignores padding (token-budget batching sorts texts by length, so little is wasted),
attention's quadratic term (short texts) and weight loading. A model whose tokenizer is not on this
machine is counted with a stand-in tokenizer (the packaged MiniLM's WordPiece) and marked so.
"""
from __future__ import annotations

import json
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..errors import CompevalError
from ..redact import redact

#: Sustained dense forward FLOP/s assumed per device kind, in the precision a sweep runs (bf16 on GPUs,
#: float32 on CPUs): about 35-40% of the datasheet's dense tensor peak, what batched encoder inference
#: with short texts reaches. H100 SXM: 989 TFLOP/s bf16 dense peak; A100: 312; L4: 121; T4: 65 (fp16).
#: ``cpu-2core``: two cores in float32, fitted on the project's 2-core machine: the default run's
#: all-MiniLM-L6-v2 encoding is 27.0 TFLOP (embedding tables left out) in about 2,200 batches (22 s at 10 ms);
#: two quiet fresh-clone runs took 163 s and 230 s of encoder time, 191 and 130 GFLOP/s, so 150 (the plan
#: within 0.8-1.2x of either); compare with measured encoder time on your machine with
#: benchmarks/plan_vs_measured.py (it prints the ratio).
#: ``h100`` is measured (benchmarks/gpu_check.py on an H100 80GB HBM3, docs/gpu-check.md): a 7B decoder with
#: the token budget sustained 170 TFLOP/s on STS3k's sentences and 260 on the modifier phrases, so 210 T
#: (their geometric mean); ``h200`` is that rate scaled by the two cards' memory bandwidth advantage (not
#: measured). Small encoders are bound by per-batch overhead, not FLOPs (MiniLM took 127x its plan).
DEVICE_FLOPS: dict[str, float] = {
    "h100": 210e12,
    "h200": 220e12,
    "a100": 120e12,
    "l4": 45e12,
    "t4": 25e12,
    "cpu-2core": 150e9,
}

#: Seconds per batch beyond the arithmetic, per device kind (the batches counted as the family's default
#: token budget and batch size cut the texts). ``cpu-2core``: benchmarks/encode_vs_anchor.py ``--overhead``
#: (all-MiniLM-L6-v2 on one torch thread, 96 one-word texts at batch 1 against batch 64: 1.094 against
#: 0.113 process CPU seconds, 10.4 ms per batch; on a shared 2-core machine at load 8, whose wall seconds
#: count the other programs' time). CUDA kinds:
#: docs/gpu-check.md's H100 MiniLM-size fp32 row on STS3k, (0.797 s measured − 0.005 s of FLOPs at 210 T,
#: embedding tables left out) / 70 batches of 64 texts = 11 ms: host-side work, so one figure for every card.
BATCH_OVERHEAD_S: dict[str, float] = {
    "h100": 0.011,
    "h200": 0.011,
    "a100": 0.011,
    "l4": 0.011,
    "t4": 0.011,
    "cpu-2core": 0.010,
}
#: Parameter tensors that are lookup tables (word, position and token-type embeddings): in the parameter
#: count, not in the FLOPs. Matched against the end of a tensor's name.
EMBEDDING_TABLE = re.compile(r"(^|\.)(word_embeddings|position_embeddings|token_type_embeddings|embed_tokens|"
                             r"embed_positions|wte|wpe|shared)\.weight$")

#: The device kind whose evaluation seconds the tasks declare (``Task.eval_cost``).
EVAL_MEASURED_ON = "cpu-2core"
#: A CUDA device's name → its kind in ``DEVICE_FLOPS`` (the first that appears in the name).
CUDA_KINDS = (("H200", "h200"), ("H100", "h100"), ("A100", "a100"), ("L4", "l4"), ("T4", "t4"))
#: The width a model's evaluation is counted at when its vectors' width is not known before loading it.
ASSUMED_WIDTH = 384

STAND_IN = "all-MiniLM-L6-v2"  # the packaged tokenizer used where a model's own is not local
TRANSFORMER_FAMILIES = ("sbert", "hf", "nvembed")  # families whose rows count a transformer's forward pass
DEFAULT_MAX_LENGTH = 512


@dataclass
class CostRow:
    spec: str
    texts: int = 0
    family: str = ""  # the resolved family the build uses ("" for a bare Hub id its files decide, not cached)
    tokens: int | None = None
    params: int | None = None
    params_from: str = ""  # "safetensors" | "config" (damaged weights: config.json's model) | "mteb" | ""
    embedding_params: int = 0  # of ``params``, those in lookup tables (``EMBEDDING_TABLE``): not FLOPs
    batches: int | None = None  # forward passes at the family's default budget and batch size
    tokenizer: str = ""  # "own" | "stand-in (…)" | "" (no forward pass)
    note: str = ""
    width: int | None = None  # the vectors' width, where known without loading the model
    eval_seconds: float | None = None  # the tasks' measured evaluation cost at that width (cpu-2core only)

    @property
    def flops(self) -> float | None:
        if self.tokens is None or self.params is None:
            return None
        return 2.0 * (self.params - self.embedding_params) * self.tokens

    def minutes(self, device: str) -> float | None:
        """Encoding minutes on ``device``: the FLOPs at the sustained rate, plus the per-batch overhead."""
        f = self.flops
        if f is None:
            return None
        return (f / DEVICE_FLOPS[device] + (self.batches or 0) * BATCH_OVERHEAD_S[device]) / 60.0

    @property
    def eval_minutes(self) -> float | None:
        return None if self.eval_seconds is None else self.eval_seconds / 60.0


@dataclass
class CostPlan:
    device: str
    rows: list[CostRow] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def total_tokens(self) -> int:
        return sum(r.tokens or 0 for r in self.rows)

    @property
    def total_flops(self) -> float:
        return sum(r.flops or 0.0 for r in self.rows)

    @property
    def total_minutes(self) -> float:
        """Encoding minutes of every model."""
        return sum(r.minutes(self.device) or 0.0 for r in self.rows)

    @property
    def eval_minutes(self) -> float | None:
        """Evaluation minutes of every model; None where they are not estimated (another device kind)."""
        if self.device != EVAL_MEASURED_ON:
            return None
        return sum(r.eval_minutes or 0.0 for r in self.rows)


def default_plan_device(run_device: str = "auto") -> str:
    """The device kind of the device the run would use (``--device``, resolved as the run resolves it):
    ``cpu-2core`` on the CPU; on CUDA the kind its name shows (H100, A100…). A device of no known kind is
    a one-line error asking for ``--plan-device`` (minutes at a guessed rate would be a wrong number)."""
    from ..context import resolve_device

    device = resolve_device(run_device)
    if device == "cpu":
        return EVAL_MEASURED_ON
    if device.startswith("cuda"):
        import torch

        name = torch.cuda.get_device_name(int(device.partition(":")[2] or 0))
        for mark, kind in CUDA_KINDS:
            if mark in name:
                return kind
        raise CompevalError(f"--plan: the run would use {name!r}, whose kind --plan has no rate for; give "
                            f"--plan-device ({', '.join(DEVICE_FLOPS)})")
    raise CompevalError(f"--plan: the run would use {device}, which --plan has no rate for; give --plan-device "
                        f"({', '.join(DEVICE_FLOPS)})")


class DamagedWeightsError(CompevalError):
    """A weights file whose safetensors header cannot be read (truncated, garbage, a failed download)."""


#: The largest safetensors header read (the format's own limit is 100 MB): a garbage length is refused, never
#: allocated.
MAX_HEADER = 100_000_000


def safetensors_params(directory: Path) -> int | None:
    """Parameters counted from the safetensors headers (``safetensors_counts``)."""
    counts = safetensors_counts(directory)
    return None if counts is None else counts[0]


def safetensors_counts(directory: Path) -> tuple[int, int] | None:
    """(parameters, of them in lookup tables) from the safetensors headers (8-byte length + JSON of shapes), no
    weights read; a header that is not one is a ``DamagedWeightsError`` naming the file."""
    files = sorted(directory.glob("*.safetensors"))
    if not files:
        return None
    total = tables = 0
    for f in files:
        try:
            size = f.stat().st_size
            with open(f, "rb") as fh:
                head = fh.read(8)
                if len(head) < 8:
                    raise ValueError(f"{len(head)} bytes, shorter than the 8-byte header length")
                (n,) = struct.unpack("<Q", head)
                if n > min(size - 8, MAX_HEADER):
                    raise ValueError(f"its header length {n:,} exceeds the file ({size:,} bytes) or the format's limit")
                header = json.loads(fh.read(n))
            if not isinstance(header, dict):
                raise ValueError("its header is not a JSON object")
            for key, t in header.items():
                if key == "__metadata__" or key.endswith("position_ids"):  # a stored index buffer, not a weight
                    continue
                count = 1
                for d in t["shape"]:
                    if not isinstance(d, int) or d < 0:
                        raise ValueError(f"tensor {key} has shape {t['shape']!r}")
                    count *= d
                total += count
                if EMBEDDING_TABLE.search(key):
                    tables += count
        except (OSError, ValueError, KeyError, TypeError) as exc:  # UnicodeDecodeError is a ValueError
            raise DamagedWeightsError(f"{f}: not a readable safetensors file ({str(exc).splitlines()[0][:120]})"
                                      ) from None
    return total, tables


def config_counts(directory: Path) -> tuple[int, int] | None:
    """(parameters, of them in lookup tables) of the model its ``config.json`` describes, built on torch's
    meta device (no memory, no weights; transformers' own classes, so the count is the loaded model's); None
    when the configuration cannot be read or built (missing, damaged, remote code)."""
    try:
        import torch
        from transformers import AutoConfig, AutoModel

        from ..models.transformers_common import quiet

        quiet()
        config = AutoConfig.from_pretrained(str(directory))
        with torch.device("meta"):
            model = AutoModel.from_config(config)
        named = list(model.named_parameters())
        return (int(sum(p.numel() for _, p in named)),
                int(sum(p.numel() for k, p in named if EMBEDDING_TABLE.search(k))))
    except Exception:  # noqa: BLE001 (any failure means: cannot tell, said in the plan's row)
        return None


def _max_length(directory: Path, family: str) -> int:
    sb = directory / "sentence_bert_config.json"
    if family == "sbert" and sb.is_file():
        value = json.loads(sb.read_text()).get("max_seq_length")
        if value:
            return int(value)
    return DEFAULT_MAX_LENGTH


def count_batches(lengths: Sequence[int], budget: int, max_texts: int | None) -> int:
    """Forward passes that token-budget batching (longest first) makes of texts of ``lengths``."""
    from ..models.batching import batches

    order = sorted(range(len(lengths)), key=lambda i: (-int(lengths[i]), i))
    return len(batches(lengths, order, budget, max_texts)) if order else 0


def _tokenizer(directory: Path):
    from transformers import AutoTokenizer

    from ..models.transformers_common import quiet

    quiet()
    return AutoTokenizer.from_pretrained(str(directory))


#: Tokenizer and config files: what a plan may fetch for a Hub model that is not in the cache (kept apart
#: from the Hub cache, so a partial snapshot never stands in for the model's weights).
TOKENIZER_FILES = ["*.json", "*.txt", "*.model", "tokenizer*", "vocab*", "merges*", "spiece*", "sentencepiece*"]


def _local_files(name: str, revision: str | None) -> tuple[Path | None, str]:
    """(a folder with the model's tokenizer and config files, or None; why not). A packaged model or a
    folder as it is; a Hub repo from the Hub cache, else (online) its tokenizer files alone, fetched into
    compeval's cache. Weights are never downloaded here."""
    from ..models.hub import PACKAGED, cache_dir, is_offline, resolve

    if name in PACKAGED or Path(name).expanduser().is_dir():
        return resolve(name, revision).directory, ""
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(name, revision=revision, cache_dir=str(cache_dir()), local_files_only=True)), ""
    except Exception:
        pass
    if is_offline():
        return None, "not in the Hub cache (HF_HUB_OFFLINE)"
    from ..cache import default_cache_dir

    try:
        return Path(snapshot_download(name, revision=revision, allow_patterns=TOKENIZER_FILES,
                                      cache_dir=str(Path(default_cache_dir()) / "plan-tokenizers"))), ""
    except Exception as exc:
        return None, f"tokenizer files not reachable ({type(exc).__name__})"


_COUNTED: dict[tuple[str, int, int], list[int]] = {}


def _counted(directory: Path, texts: Sequence[str], max_length: int, budget: int,
             max_texts: int | None) -> tuple[int, int]:
    """(tokens, batches): the texts' token lengths once per tokenizer folder, length and text list (the
    stand-in serves many rows), summed and batched."""
    from ..models.batching import token_lengths

    key = (str(directory), max_length, id(texts))
    if key not in _COUNTED:
        _COUNTED[key] = [int(n) for n in token_lengths(_tokenizer(directory), list(texts), max_length)]
    lengths = _COUNTED[key]
    return sum(lengths), count_batches(lengths, budget, max_texts)


def files_width(directory: Path) -> int | None:
    """A transformer's vector width from its pooling config, else its model config's hidden size."""
    for path, key in (("1_Pooling/config.json", "word_embedding_dimension"), ("config.json", "hidden_size"),
                      ("config.json", "d_model")):
        f = directory / path
        try:
            value = json.loads(f.read_text()).get(key) if f.is_file() else None
        except (OSError, ValueError, AttributeError):  # a damaged file: width unknown, the plan says so
            continue
        if isinstance(value, int) and value > 0:
            return value
    return None


def spec_width(parsed) -> int | None:
    """A non-transformer model's width where its spec states it: a ``dim=`` option, or a name ending in
    ``-<N>d`` (``glove-6b-50d``)."""
    if str(parsed.options.get("dim", "")).isdigit():
        return int(parsed.options["dim"])
    for text in (parsed.arg or "", parsed.name):  # an alias expands to FAMILY:NAME
        found = re.search(r"-(\d+)d$", text)
        if found:
            return int(found.group(1))
    return None


def model_cost(model: Any, texts: Sequence[str]) -> CostRow:
    """One model's row (a spec string is resolved here), never loading weights. A bare Hub id whose family its
    files decide, not cached, is counted as a transformer (both candidate families are)."""
    from ..models.hub import resolve
    from ..models.model_lists import model_metadata
    from ..models.registry import resolve_model

    resolved = resolve_model(model)
    row = CostRow(str(resolved), texts=len(texts), family=resolved.family or "")
    family_name = resolved.name or "hf"
    if family_name not in TRANSFORMER_FAMILIES:
        row.note = "no transformer forward pass" if not resolved.torch else f"{resolved.family}: not estimated"
        row.width = spec_width(resolved.spec)
        return row
    name = resolved.arg or STAND_IN
    own_length = getattr(resolved.options, "max_length", None)
    from ..models.batching import family_default

    budget = getattr(resolved.options, "max_batch_tokens", None) or family_default(family_name)
    max_texts = getattr(resolved.options, "batch", None)
    if resolved.weights is not None:
        directory, where = resolved.weights.directory, ""
    else:
        directory, where = _local_files(name, getattr(resolved.options, "revision", None)
                                        or resolved.spec.options.get("revision") or None)
    if directory is None:
        row.note = where
    if directory is not None:
        try:
            row.tokens, row.batches = _counted(directory, texts, own_length or _max_length(directory, family_name),
                                               budget, max_texts)
            row.tokenizer = "own"
        except Exception as exc:  # a tokenizer that needs remote code or a missing library: the stand-in
            row.note = f"own tokenizer did not load ({type(exc).__name__})"
        try:
            counts = safetensors_counts(directory)
            row.params_from = "safetensors" if counts is not None else ""
        except DamagedWeightsError as exc:  # one bad download must not cost a sweep its plan
            counts = config_counts(directory)
            row.params_from = "config" if counts is not None else ""
            found = "parameters from config.json" if counts is not None else "parameters unknown"
            row.note = ", ".join(x for x in (row.note, f"{exc} ({found})") if x)
        if counts is not None:
            row.params, row.embedding_params = counts
        row.width = files_width(directory)
    if row.tokens is None:
        row.tokens, row.batches = _counted(resolve(STAND_IN).directory, texts, own_length or DEFAULT_MAX_LENGTH,
                                           budget, max_texts)
        row.tokenizer = f"stand-in ({STAND_IN})"
    if row.params is None:
        facts = model_metadata(name)
        if facts.n_parameters:  # the embedding tables' share is not known: counted as FLOPs, said so
            row.params, row.params_from = int(facts.n_parameters), "mteb"
            row.note = ", ".join(x for x in (row.note, "FLOPs include the embedding tables") if x)
    return row


def task_texts(tasks: Sequence[Any], data_dir: Path | None) -> tuple[list[str], list[str], list[str]]:
    """(unique texts of all the tasks, the task slugs that gave texts, notes about tasks left out)."""
    texts, used, notes, _ = _load_tasks(tasks, data_dir)
    return texts, used, notes


def _load_tasks(tasks: Sequence[Any], data_dir: Path | None) -> tuple[list[str], list[str], list[str], list[Any]]:
    """``task_texts``'s three, and the task objects that loaded."""
    from ..context import RunContext
    from ..data.registry import DataContext
    from ..tasks.registry import get_tasks

    data = DataContext(data_dir, download=False)
    ctx = RunContext(data_dir=data_dir, cache_dir=None)
    texts: dict[str, None] = {}
    used, notes, loaded = [], [], []
    for t in tasks:
        for task in (get_tasks(t) if isinstance(t, str) else [t]):
            task.context = ctx
            try:
                task.load(data.for_task())
            except Exception as exc:  # missing data: that task is left out of the estimate, said so
                notes.append(f"{task.slug}: left out ({type(exc).__name__}: {str(exc).splitlines()[0][:100]})")
                continue
            loaded.append(task)
            declared = task.texts()
            if not declared:
                notes.append(f"{task.slug}: declares no texts up front (its encoding not counted)")
                continue
            used.append(task.slug)
            texts.update(dict.fromkeys(declared))
    return list(texts), used, notes, loaded


#: Cores of the device kind whose evaluation seconds the tasks declare: tasks that stage their heads
#: (``Task.staged``) train them side by side, one per core (``runner/loop.py``).
EVAL_CORES = 2


def eval_seconds(tasks: Sequence[Any], width: int) -> float:
    """The tasks' measured evaluation seconds on ``cpu-2core`` for a model of ``width``, those of staging tasks
    shared among ``EVAL_CORES``; a task without a measured cost counts 0 (the plan names it)."""
    costs = [(t.eval_cost.seconds(width), t.stages()) for t in tasks if t.eval_cost is not None]
    return sum(c for c, staged in costs if not staged) + sum(c for c, staged in costs if staged) / EVAL_CORES


def plan_costs(models: Sequence[str], tasks: Sequence[str], *, data_dir: Path | None = None,
               device: str = "h100") -> CostPlan:
    if device not in DEVICE_FLOPS:
        raise CompevalError(f"--plan-device {device!r}: choose one of {', '.join(DEVICE_FLOPS)}")
    texts, used, notes, loaded = _load_tasks(tasks, data_dir)
    unmeasured = [t.slug for t in loaded if t.eval_cost is None]
    if unmeasured:
        notes.append(f"evaluation not measured, counted as 0: {', '.join(unmeasured)}")
    if device != EVAL_MEASURED_ON:
        notes.append(f"evaluation not estimated on {device}: the tasks' costs are measured on {EVAL_MEASURED_ON}")
    out = CostPlan(device=device, tasks=used, notes=notes)
    for model in models:
        row = model_cost(model, texts)
        if row.width is None:
            row.note = ", ".join(x for x in (row.note, f"width unknown: evaluation counted at {ASSUMED_WIDTH}") if x)
        if device == EVAL_MEASURED_ON:
            row.eval_seconds = eval_seconds(loaded, row.width or ASSUMED_WIDTH)
        out.rows.append(row)
    return out


def _si(x: float | None, unit: str = "") -> str:
    if x is None:
        return "–"
    for f, s in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= f:
            return f"{x / f:.3g}{s}{unit}"
    return f"{x:.3g}{unit}"


def _minutes(x: float | None) -> str:
    return f"{x:.2f}" if x is not None else "–"


#: The plan's columns: (header, right-aligned)
PLAN_COLUMNS = (("model", False), ("texts", True), ("tokens", True), ("params", True), ("FLOPs", True),
                ("width", True), ("encode", True), ("evaluate", True), ("source", False))


def plan_head(plan: CostPlan) -> str:
    return f"device kind: {plan.device} (minutes below; --plan-device to change)"


def plan_cells(plan: CostPlan) -> list[list[str]]:
    """One row of ``PLAN_COLUMNS`` cells per model (specs redacted)."""
    rows = []
    for r in plan.rows:
        src = ", ".join(x for x in (f"params: {r.params_from}" if r.params_from else "",
                                     f"tokens: {r.tokenizer}" if r.tokenizer else "", r.note) if x)
        rows.append([redact(r.spec), str(r.texts), "–" if r.tokens is None else str(r.tokens), _si(r.params),
                     _si(r.flops), str(r.width or "–"), _minutes(r.minutes(plan.device)), _minutes(r.eval_minutes),
                     src])
    return rows


def plan_footer(plan: CostPlan) -> list[str]:
    """The totals and the assumptions behind the minutes, then the notes."""
    ev = plan.eval_minutes
    total = (f"est. {plan.total_minutes + ev:.1f} min on {plan.device}: encoding {plan.total_minutes:.1f} + "
             f"evaluation {ev:.1f}" if ev is not None else
             f"est. {plan.total_minutes:.1f} min of encoding on {plan.device}, evaluation not estimated")
    lines = [f"{len(plan.rows)} models, {len(plan.tasks)} tasks with texts; total tokens {plan.total_tokens:,}, "
             f"forward FLOPs {_si(plan.total_flops)}; {total} (encoding at an assumed sustained "
             f"{_si(DEVICE_FLOPS[plan.device], 'FLOP/s')} plus {BATCH_OVERHEAD_S[plan.device] * 1e3:g} ms per batch, "
             "embedding tables not counted as FLOPs; evaluation from the tasks' measured costs; "
             "weight loading and data download not included)"]
    return lines + [f"note: {n}" for n in plan.notes]


def format_plan(plan: CostPlan) -> str:
    """The plan as plain text at natural width (the CLI fits the same cells to the terminal)."""
    cells = plan_cells(plan)
    widths = [max([len(h)] + [len(r[k]) for r in cells]) for k, (h, _) in enumerate(PLAN_COLUMNS)]

    def line(values):
        return " ".join(v.rjust(w) if right else v.ljust(w)
                        for v, w, (_, right) in zip(values, widths, PLAN_COLUMNS)).rstrip()

    head = line([h for h, _ in PLAN_COLUMNS])
    rule = "-" * max(len(head), *(len(line(r)) for r in cells)) if cells else "-" * len(head)
    return "\n".join([plan_head(plan), head, rule, *(line(r) for r in cells), rule, *plan_footer(plan)])
