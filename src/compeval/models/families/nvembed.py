"""NV-Embed-v2 without the repo's code (which pins transformers 4.42): rebuilt from the checkpoint's parameter
names as the card runs it (docs/models.md § NV-Embed-v2); a parameter that does not fit is an error, never a
random layer.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from ...errors import InputTextError, SpecError
from pydantic import Field

from ..options import TorchOptions, batch_setting, identity_field
from ..prompts import INSTRUCT_QUERY, PROMPT_HELP, PromptChoice
from ..registry import register_model
from ..transformers_common import TorchModel, TorchSetup, Weights, quiet, resolve, revision_field, torch_dtype

DEFAULT_REPO = "nvidia/NV-Embed-v2"
DEFAULT_TASK = "Retrieve semantically similar text."  # the NV-Embed paper's instruction for STS tasks
DEFAULT_MAX_LENGTH = 32768  # the card's example (Mistral's context)
DEFAULT_BATCH = 8
# configuration_nvembed.LatentAttentionConfig's defaults, for what config.json's latent_attention_config leaves out.
LATENT_DEFAULTS = {"num_latents_value": 512, "num_cross_heads": 8, "output_normalize": True,
                   "hidden_dim": 4096, "latent_dim": 4096, "cross_dim_head": 4096}
# The published recipe (configuration_nvembed.NVEmbedConfig): other values are refused, not approximated.
CARD_RECIPE = {"padding_side": "right", "is_mask_instruction": True, "add_pad_token": True}
# MistralConfig fields read from text_config (the rest of its dump are generation defaults).
MISTRAL_FIELDS = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                  "num_key_value_heads", "head_dim", "hidden_act", "max_position_embeddings", "rms_norm_eps",
                  "rope_theta", "bos_token_id", "eos_token_id")


def card_prefix(task: str) -> str:
    """The card's query prefix for ``task``; no task, no prefix (the card's passages)."""
    return INSTRUCT_QUERY.fill(task)


def _read_config(directory: Path, name: str, where: str) -> dict:
    path = directory / "config.json"
    if not path.is_file():
        raise SpecError(f"{where}: {name} has no config.json: not an NV-Embed checkpoint")
    config = json.loads(path.read_text())
    if "NVEmbedModel" not in (config.get("architectures") or []) and config.get("model_type") != "nvembed":
        raise SpecError(f"{where}: {name} is not an NV-Embed checkpoint (config.json architectures "
                        f"{config.get('architectures')}); use hf: or sbert: for it")
    for key, value in CARD_RECIPE.items():
        if config.get(key, value) != value:
            raise SpecError(f"{where}: {name} sets {key}={config[key]!r}; the nvembed family runs only the "
                            f"published recipe ({key}={value!r})")
    if not isinstance(config.get("text_config"), dict):
        raise SpecError(f"{where}: {name}'s config.json has no text_config for its Mistral backbone")
    return config


def _weight_files(directory: Path, name: str, where: str) -> list[Path]:
    index = directory / "model.safetensors.index.json"
    if index.is_file():
        files = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        paths = [directory / f for f in files]
        absent = [f for f, p in zip(files, paths) if not p.is_file()]
        if absent:
            raise SpecError(f"{where}: {name} lacks weight file(s) {', '.join(absent)} named in its index; "
                            f"fetch the whole repo (hf download {name})")
        return paths
    if (directory / "model.safetensors").is_file():
        return [directory / "model.safetensors"]
    raise SpecError(f"{where}: {name} has no safetensors weights (model.safetensors or its index)")


def _listed(keys: Sequence[str], limit: int = 6) -> str:
    keys = sorted(keys)
    more = f" … +{len(keys) - limit} more" if len(keys) > limit else ""
    return ", ".join(keys[:limit]) + more


def _network(config: dict, dtype: Any) -> Any:
    """The model's modules on the meta device (no memory, no random values), named as the checkpoint."""
    import torch
    from torch import nn
    from transformers import MistralConfig, MistralModel

    text = config["text_config"]
    mistral = MistralConfig(**{k: text[k] for k in MISTRAL_FIELDS if text.get(k) is not None},
                            sliding_window=None, attention_dropout=0.0)
    mistral._attn_implementation = "sdpa"
    latent = {**LATENT_DEFAULTS, **(config.get("latent_attention_config") or {})}
    hidden = mistral.hidden_size
    if not latent["hidden_dim"] == latent["latent_dim"] == hidden:
        raise SpecError(f"latent attention dims (hidden_dim {latent['hidden_dim']}, latent_dim "
                        f"{latent['latent_dim']}) differ from the backbone's hidden size {hidden}")

    class Network(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding_model = MistralModel(mistral)
            self.latent_attention_model = LatentAttentionPooling(
                latent["num_latents_value"], latent["latent_dim"], latent["hidden_dim"],
                latent["num_cross_heads"], latent["cross_dim_head"])
            for layer in self.embedding_model.layers:
                layer.self_attn.is_causal = False

    with torch.device("meta"):
        net = Network()
    net.mistral_config = mistral
    return net


def _load_weights(net: Any, files: list[Path], dtype: Any, device: str, name: str, where: str) -> None:
    """Check the checkpoint's names and shapes against the modules, then assign shard by shard."""
    import torch
    from safetensors import safe_open
    from safetensors.torch import load_file
    from transformers.models.mistral.modeling_mistral import MistralRotaryEmbedding

    expected = {k: tuple(v.shape) for k, v in net.state_dict().items()}
    found: dict[str, tuple] = {}
    for f in files:
        with safe_open(str(f), framework="pt") as s:
            for k in s.keys():
                found[k] = tuple(s.get_slice(k).get_shape())
    missing = [k for k in expected if k not in found]
    unexpected = [k for k in found if k not in expected]
    misshapen = [f"{k} {list(found[k])}≠{list(v)}" for k, v in expected.items() if k in found and found[k] != v]
    if missing or unexpected or misshapen:
        parts = [f"{label}: {_listed(keys)}" for label, keys in
                 (("missing", missing), ("unexpected", unexpected), ("wrong shape", misshapen)) if keys]
        raise SpecError(f"{where}: {name}'s weights do not fit NV-Embed ({'; '.join(parts)}); "
                        "the nvembed family loads only a complete NV-Embed checkpoint, never random weights: fetch the repo "
                        "again or point at a complete copy")
    for f in files:
        part = {k: v.to(device=device, dtype=dtype) for k, v in load_file(str(f)).items()}
        net.load_state_dict(part, strict=False, assign=True)
    # The rotary frequencies are computed, not stored: build them on the device.
    with torch.device(device):
        net.embedding_model.rotary_emb = MistralRotaryEmbedding(config=net.mistral_config)
    left = [k for k, v in [*net.named_parameters(), *net.named_buffers()] if v.is_meta]
    if left:  # every stored name was checked above; this guards the modules themselves
        raise SpecError(f"{where}: {name}: no weights for {_listed(left)}")


@lru_cache(maxsize=1)
def _latent_modules():
    """The pooling layer's module classes, defined on first use so that importing this family needs no torch."""
    from torch import nn
    import torch.nn.functional as F

    class CrossAttention(nn.Module):
        """Token states (queries) attend to the latent array (keys and values)."""

        def __init__(self, query_dim: int, context_dim: int, heads: int, dim_head: int):
            super().__init__()
            self.heads = heads
            self.to_q = nn.Linear(query_dim, heads * dim_head, bias=False)
            self.to_kv = nn.Linear(context_dim, 2 * heads * dim_head, bias=False)
            self.to_out = nn.Linear(heads * dim_head, query_dim, bias=False)

        def forward(self, x, context):
            b, n, _ = x.shape
            q = self.to_q(x)
            k, v = self.to_kv(context).chunk(2, dim=-1)
            q, k, v = (t.reshape(t.shape[0], t.shape[1], self.heads, -1).transpose(1, 2) for t in (q, k, v))
            out = F.scaled_dot_product_attention(q, k, v)  # scale 1/sqrt(dim_head), no mask: latents only
            return self.to_out(out.transpose(1, 2).reshape(b, n, -1))

    class GEGLU(nn.Module):
        def forward(self, x):
            x, gates = x.chunk(2, dim=-1)
            return x * F.gelu(gates)

    class FeedForward(nn.Module):
        def __init__(self, dim: int, mult: int = 4):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(dim, dim * mult * 2), GEGLU(), nn.Linear(dim * mult, dim))

        def forward(self, x):
            return self.net(x)

    class PreNorm(nn.Module):
        def __init__(self, dim: int, fn: nn.Module, context_dim: int | None = None):
            super().__init__()
            self.fn, self.norm = fn, nn.LayerNorm(dim)
            self.norm_context = nn.LayerNorm(context_dim) if context_dim is not None else None

        def forward(self, x, context=None):
            if self.norm_context is None:
                return self.fn(self.norm(x))
            return self.fn(self.norm(x), self.norm_context(context))

    return CrossAttention, FeedForward, PreNorm


def LatentAttentionPooling(num_latents: int, latent_dim: int, hidden_dim: int, heads: int, dim_head: int):
    """The pooling layer (checkpoint names ``latents`` and ``cross_attend_blocks.{0,1}.…``)."""
    import torch
    from torch import nn

    CrossAttention, FeedForward, PreNorm = _latent_modules()

    class Pooling(nn.Module):
        def __init__(self):
            super().__init__()
            self.cross_attend_blocks = nn.ModuleList([
                PreNorm(latent_dim, CrossAttention(latent_dim, hidden_dim, heads, dim_head), context_dim=hidden_dim),
                PreNorm(latent_dim, FeedForward(latent_dim)),
            ])
            self.latents = nn.Parameter(torch.empty(num_latents, latent_dim))

        def forward(self, hidden, pool_mask):
            attend, feed = self.cross_attend_blocks
            latents = self.latents.unsqueeze(0).expand(hidden.shape[0], -1, -1)
            hidden = attend(hidden, latents) + hidden
            hidden = feed(hidden) + hidden
            m = pool_mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * m).sum(1) / m.sum(1)

    return Pooling()


class NVEmbedModel(TorchModel):
    """Weights load on first use, so a re-run whose results all exist never imports torch."""

    def __init__(self, path_or_name: str = DEFAULT_REPO, task: str = DEFAULT_TASK, *, revision: str | None = None,
                 setup: TorchSetup | None = None, where: str | None = None, prompt: PromptChoice | None = None,
                 options: "NVEmbedOptions | None" = None):
        where = where or f"nvembed:{path_or_name}"
        setup = setup or TorchSetup.outside_a_run(batch=DEFAULT_BATCH)
        weights = path_or_name if isinstance(path_or_name, Weights) else resolve(path_or_name, revision)
        self.config_json = _read_config(weights.directory, weights.name, where)
        self.files = _weight_files(weights.directory, weights.name, where)
        self.directory, self.weights, self.setup, self.where = weights.directory, weights, setup, where
        choice = prompt or PromptChoice("instruction", task, INSTRUCT_QUERY)
        self.prefix = choice.text(weights.directory, where, weights.name)
        self.task = INSTRUCT_QUERY.instruction_of(self.prefix)  # None: a prefix not of the card's form
        self.batch_size, self.max_length = setup.batch, setup.max_length or DEFAULT_MAX_LENGTH
        self._loaded = None
        if options is None:  # made directly: the options its arguments amount to
            options = NVEmbedOptions.model_construct(dtype=setup.dtype, max_length=setup.max_length,
                                                     batch=setup.batch)
        facts: dict[str, Any] = {
            "weights": weights.weights, "pooling": "latent-attention", "attention": "bidirectional",
            "instruction_pooled": False, "bos": True, "eos": "</s> appended", "padding": "right",
            "normalise": "l2", "transformers": metadata.version("transformers")}
        self._config = options.to_model_config(
            weights.name, facts=facts, location=str(weights.directory), settings=setup.settings(),
            resolved={"instruction": self.task, "prompt": self.prefix,
                      "max_length": self.max_length, "revision": weights.commit or None})

    def _load(self):
        if self._loaded is None:
            quiet()
            import torch
            from transformers import AutoTokenizer

            device = self.device
            tokenizer = AutoTokenizer.from_pretrained(str(self.directory), trust_remote_code=False)
            if tokenizer.eos_token is None:
                raise SpecError(f"{self.where}: {self.weights.name}'s tokenizer has no EOS token, which the card "
                                "appends to every text")
            tokenizer.pad_token, tokenizer.padding_side = tokenizer.eos_token, "right"  # the card's add_pad_token
            first = tokenizer("a")["input_ids"][0]
            if tokenizer.bos_token_id is None or first != tokenizer.bos_token_id:
                raise SpecError(f"{self.where}: {self.weights.name}'s tokenizer does not start texts with BOS "
                                f"(first id {first}), as the card's Mistral tokenizer does; check its tokenizer.json "
                                "post-processor")
            tokenizer.truncation_side = "right"
            net = _network(self.config_json, torch_dtype(self.setup.dtype))
            _load_weights(net, self.files, torch_dtype(self.setup.dtype), device, self.weights.name, self.where)
            n_prefix = len(tokenizer.tokenize(self.prefix)) if self.prefix else 0
            self._loaded = (torch, tokenizer, net.eval(), n_prefix)
            self._config = self._config.model_copy(update={"settings": self.setup.settings()})
        return self._loaded

    def close(self) -> None:
        """Release the weights (they load again on the next encode)."""
        self._loaded = None

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        torch, tokenizer, net, n_prefix = self._load()
        from transformers.masking_utils import create_bidirectional_mask

        texts = list(texts)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # similar lengths share a batch
        out = np.zeros((len(texts), net.embedding_model.config.hidden_size), np.float32)
        device = next(net.parameters()).device
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                enc = tokenizer([self.prefix + texts[i] + tokenizer.eos_token for i in rows], padding=True,
                                truncation=True, max_length=self.max_length, return_tensors="pt",
                                return_token_type_ids=False)
                ids, mask = enc["input_ids"].to(device), enc["attention_mask"].to(device)
                pool = mask.clone()
                pool[:, :n_prefix] = 0  # the card's instruction mask (right padding)
                empty = (pool.sum(1) == 0).nonzero().flatten().tolist()
                if empty:
                    raise InputTextError(f"{self.where}: {texts[rows[empty[0]]]!r} leaves no token to pool after "
                                         f"the {n_prefix}-token instruction at max_length={self.max_length}")
                embeds = net.embedding_model.embed_tokens(ids)
                attn = create_bidirectional_mask(config=net.mistral_config, inputs_embeds=embeds,
                                                 attention_mask=mask, allow_is_bidirectional_skip=False)
                hidden = net.embedding_model(inputs_embeds=embeds, attention_mask=attn).last_hidden_state
                pooled = net.latent_attention_model(hidden, pool).float()
                out[rows] = torch.nn.functional.normalize(pooled, p=2, dim=-1).cpu().numpy()
        return out


class NVEmbedOptions(TorchOptions):
    """The prompt options are recorded as the build resolves them: ``instruction`` the card's instruction the
    effective prefix holds (null when it is not of the card's form), ``prompt`` that prefix, ``prompt_name``
    never (the prefix it names is recorded)."""

    instruction: str | None = identity_field(None, record="null", description='task text, sent as "Instruct: TASK\\nQuery: " before each '
                                                       f'text; "" for none (default: {DEFAULT_TASK!r})')
    prompt: str | None = Field(None, description=PROMPT_HELP["prompt"])
    prompt_name: str | None = Field(None, description=PROMPT_HELP["prompt_name"])
    batch: int = batch_setting(DEFAULT_BATCH)
    max_length: int | None = Field(None, ge=1, description=f"truncate inputs to N tokens (default "
                                                           f"{DEFAULT_MAX_LENGTH}, the card's)")
    revision: str | None = revision_field()
    weights_arg: ClassVar[bool] = True  # the spec's argument names weights (registry.resolve_model locates them)
    unrecorded: ClassVar[tuple[str, ...]] = ("prompt_name",)  # folded into prompt and instruction

    shown_order: ClassVar[tuple[str, ...]] = ("instruction", "prompt", "max_length", "dtype")

    def shown(self, params: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str, ...]:
        """The prefix as the instruction it holds when that is not the default one, as the whole prompt when
        it holds none (not of the card's form); max_length where set, the dtype where recorded; never the
        revision (its commit is recorded)."""
        out = tuple(k for k in names if k in ("max_length", "dtype"))
        task = params.get("instruction")
        return ("prompt",) * (task is None) + ("instruction",) * (task is not None and task != DEFAULT_TASK) + out


@register_model("nvembed", 1, "NV-Embed-v2: bidirectional Mistral + latent-attention pooling, the card's "
                "instruction format, without the repo's code", ("nvembed:ORG/NAME|PATH",),
                options=NVEmbedOptions)
def _nvembed(resolved, builder):
    opts, where = resolved.options, str(resolved.spec)
    prompt = PromptChoice.from_options(opts, where, template=INSTRUCT_QUERY, default=card_prefix(DEFAULT_TASK))
    return NVEmbedModel(resolved.local_weights(DEFAULT_REPO), revision=opts.revision,
                        prompt=prompt,
                        setup=TorchSetup.of(resolved, builder), where=where, options=opts)
