"""Plain Hugging Face transformers with a chosen layer (0 = input embeddings) and pooling (``mean`` keeps
special tokens, as the STS3k authors did). Weights the class and checkpoint do not share are an error naming
the keys, never random weights.
"""
from __future__ import annotations

import json
from importlib import metadata
from typing import Any, ClassVar, Literal, Sequence

import numpy as np

from ... import textfile
from ...errors import MalformedDataError, SpecError
from ..batching import Budget, encode_budgeted, family_default, token_lengths
from pydantic import Field

from ..options import identity_field
from ..prompts import PROMPT_HELP, PromptChoice
from ..recipes import RecipeName, asked_special_tokens, card_template, recipe_setting, special_tokens
from ..registry import register_model
from ..word_states import hidden_state_tokens
from ..transformers_common import (HubOptions, TorchModel, TorchSetup, check_remote_code, model_arg, quiet,
                                 Weights, resolve, torch_dtype)

POOLINGS = ("cls", "mean", "mean-nospecial", "max", "last")
UNUSED_WEIGHTS = ("pooler.",)  # modules whose output never reaches hidden_states: absent is harmless


def _n_layers(config: dict) -> int | None:
    for c in (config, config.get("text_config") or {}):
        for key in ("num_hidden_layers", "n_layer"):  # n_layer: GPT-1/GPT-2 style configs
            if isinstance(c.get(key), int):
                return c[key]
    return None


def _is_encoder_class(arch: str) -> bool:
    """``BertModel``, ``MistralModel``, ``DPRContextEncoder``: a class whose output is hidden states, not a
    task head (``…LMHeadModel``, ``…ForMaskedLM``, ``…ForCausalLM``)."""
    return (arch.endswith("Model") and not arch.endswith("LMHeadModel")) or arch.endswith("Encoder")


def load_checked(directory: Any, config: dict, where: str, **kwargs: Any) -> Any:
    """The model of ``directory`` with every weight from its checkpoint (see the module docstring)."""
    import transformers
    from transformers import AutoModel

    arch = next(iter(config.get("architectures") or []), None)
    cls = getattr(transformers, arch, None) if isinstance(arch, str) else None
    own = cls is not None and _is_encoder_class(arch) and not config.get("auto_map")
    loader = cls if own else AutoModel
    model, info = loader.from_pretrained(str(directory), output_loading_info=True, **kwargs)
    missing = sorted(k for k in info.get("missing_keys", ()) if not k.startswith(UNUSED_WEIGHTS))
    unexpected = sorted(info.get("unexpected_keys", ()))
    if arch and not own:  # a head class's checkpoint: the head's weights have no place in the base model
        inner = {name for name, _ in model.named_children()}
        unexpected = [k for k in unexpected if k.split(".")[0] in inner]
    mismatched = sorted(str(k[0] if isinstance(k, tuple) else k) for k in info.get("mismatched_keys", ()))
    refuse_unfit(where, type(model).__name__, arch, missing, unexpected, mismatched)
    return model


def refuse_unfit(where: str, cls_name: str, arch: str | None, missing: list[str], unexpected: list[str],
                 mismatched: list[str]) -> None:
    """One line naming the weights a checkpoint lacks, has no place for, or shapes wrongly (if any)."""
    if not (missing or unexpected or mismatched):
        return

    def few(keys):
        return ", ".join(keys[:4]) + (f" … ({len(keys)} in all)" if len(keys) > 4 else "")

    parts = [f"{label} {few(keys)}" for label, keys in
             (("missing", missing), ("unexpected", unexpected), ("wrong shape", mismatched)) if keys]
    raise SpecError(f"{where}: the checkpoint does not fit {cls_name} ({'; '.join(parts)}), so those weights "
                    f"would be random; check config.json architectures ({arch or 'none'}) against the weights file")


def checkpoint_shapes(folder: Any) -> dict[str, tuple[int, ...]] | None:
    """Every tensor name and shape in a folder's weights files (safetensors, sharded or not, else a torch
    ``pytorch_model.bin`` read memory-mapped), or None when the folder holds none."""
    from pathlib import Path

    folder = Path(folder)
    files = sorted(folder.glob("*.safetensors"))
    if files:
        from safetensors import safe_open

        shapes: dict[str, tuple[int, ...]] = {}
        for f in files:
            with safe_open(str(f), framework="pt") as st:
                shapes.update({k: tuple(st.get_slice(k).get_shape()) for k in st.keys()})
        return shapes
    files = sorted(folder.glob("pytorch_model*.bin"))
    if files:
        import torch

        shapes = {}
        for f in files:
            state = torch.load(str(f), map_location="cpu", mmap=True, weights_only=True)
            shapes.update({k: tuple(v.shape) for k, v in state.items()})
        return shapes
    return None


def check_loaded_weights(model: Any, folder: Any, where: str) -> None:
    """``load_checked``'s rule for loaders that do not report what they skipped (sentence-transformers); a head
    class's checkpoint (``bert.…`` keys) is read under the base model's names."""
    shapes = checkpoint_shapes(folder)
    if shapes is None:
        return
    params = {k: tuple(v.shape) for k, v in model.named_parameters()}
    prefix = getattr(model, "base_model_prefix", "") or ""
    if prefix and not any(k.startswith(prefix + ".") for k in params) \
            and any(k.startswith(prefix + ".") for k in shapes):
        shapes = {k[len(prefix) + 1:]: v for k, v in shapes.items() if k.startswith(prefix + ".")}
    state = set(model.state_dict()) | {k for k, _ in model.named_buffers()}  # older files keep position_ids
    inner = {name for name, _ in model.named_children()}
    missing = sorted(k for k in params if k not in shapes and not k.startswith(UNUSED_WEIGHTS))
    unexpected = sorted(k for k in shapes if k not in state and k.split(".")[0] in inner)
    mismatched = sorted(k for k, v in params.items() if k in shapes and shapes[k] != v)
    arch = next(iter(getattr(model.config, "architectures", None) or []), None)
    refuse_unfit(where, type(model).__name__, arch, missing, unexpected, mismatched)


def last_token(hidden: Any, mask: Any) -> Any:
    """Each row's state at its last attended position: right padding (…, t, pad, pad) and left padding
    (pad, pad, …, t) alike, as the position of the last 1 in the attention mask."""
    import torch

    positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
    last = (positions * mask.long()).argmax(dim=1)
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), last]


class HFModel(TorchModel):
    def __init__(self, path_or_name: str, layer: int = -1, pooling: str = "mean", batch_size: int = 32,
                 max_length: int = 512, *, revision: str | None = None, setup: TorchSetup | None = None,
                 prompt: str | PromptChoice = "", where: str | None = None, recipe: str | None = None,
                 options: "HFOptions | None" = None):
        if pooling not in POOLINGS:
            raise SpecError(f"pooling {pooling!r} unknown; choose one of {', '.join(POOLINGS)}")
        where = where or f"hf:{path_or_name}"
        setup = setup or TorchSetup.outside_a_run(batch=batch_size, max_length=max_length)
        weights = path_or_name if isinstance(path_or_name, Weights) else resolve(path_or_name, revision)
        directory = weights.directory
        config_file = directory / "config.json"
        if not config_file.is_file():
            raise SpecError(f"{directory} has no config.json: not a Hugging Face model directory")
        check_remote_code(weights, setup, where)
        if isinstance(prompt, PromptChoice):  # prompt_name= reads the folder's config_sentence_transformers.json
            prompt = prompt.text(directory, where, weights.name)
        try:
            self.hf_config = json.loads(textfile.read_text(config_file))
        except json.JSONDecodeError as exc:  # a damaged or hand-edited config: one line naming it
            raise MalformedDataError(config_file, exc.lineno, f"not valid JSON ({exc.msg})") from None
        n_layers = _n_layers(self.hf_config)
        resolved = layer if layer >= 0 or n_layers is None else n_layers + 1 + layer
        if n_layers is not None and not 0 <= resolved <= n_layers:
            raise SpecError(f"{where}: {weights.name} has layers 0..{n_layers} (0 = input embeddings); got "
                            f"layer={layer}; give a layer in that range (or a negative one, counting from the end)")
        self.where, self.recipe = where, recipe
        self.directory, self.weights, self.setup = directory, weights, setup
        self.layer, self.pooling, self.prompt = resolved, pooling, prompt
        self.batch_size, self.max_length = setup.batch, setup.max_length or max_length
        setup.max_batch_tokens = setup.max_batch_tokens or family_default("hf")
        self.budget = Budget(setup.max_batch_tokens, max_texts=setup.batch)
        self._loaded = None
        if options is None:  # made directly: the options its arguments amount to
            options = HFOptions(layer=layer, pool=pooling, dtype=setup.dtype, max_length=max_length,
                                trust_remote_code=setup.trust_remote_code)
        facts: dict[str, Any] = {"weights": weights.weights, "transformers": metadata.version("transformers")}
        asked = asked_special_tokens(directory)
        if asked:  # what the tokenizer is made to add (checked when it loads)
            facts["special_tokens"] = ",".join(k[4:-6] for k, v in sorted(asked.items()) if v) or "none"
        self._config = options.to_model_config(
            weights.name, facts=facts, location=str(directory), settings=self._settings(),
            resolved={"layer": resolved, "pooling": pooling, "max_length": self.max_length,
                      "revision": weights.commit or None, "prompt": prompt or None})

    def _settings(self) -> dict[str, Any]:
        """Run settings, and the recipe a bare repo id was given (its settings are in params already)."""
        return {**self.setup.settings(), **({"recipe": self.recipe} if self.recipe else {})}

    def _load(self):
        """Weights load on first use (a re-run with every result present never imports torch)."""
        if self._loaded is None:
            quiet()
            import torch
            from transformers import AutoTokenizer

            device = self.device
            remote = self.setup.trust_remote_code
            tokenizer = AutoTokenizer.from_pretrained(str(self.directory), trust_remote_code=remote)
            special_tokens(tokenizer, self.directory, self.where)
            if tokenizer.pad_token is None:  # decoder tokenizers (Llama, Mistral) often have none
                tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
            model = load_checked(self.directory, self.hf_config, self.where, output_hidden_states=True,
                                 dtype=torch_dtype(self.setup.dtype), trust_remote_code=remote)
            model = model.to(device).eval()
            self._loaded = (torch, tokenizer, model)
            self._config = self._config.model_copy(update={"settings": self._settings()})
        return self._loaded

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        torch, tokenizer, model = self._load()
        device = model.device

        def forward(batch: list[str]) -> np.ndarray:
            enc = tokenizer(batch, padding=True, truncation=True, max_length=self.max_length,
                            return_tensors="pt", return_special_tokens_mask=True)
            special = enc.pop("special_tokens_mask").to(device)
            enc = {k: v.to(device) for k, v in enc.items()}
            hidden = model(**enc).hidden_states[self.layer]
            mask = enc["attention_mask"]
            if self.pooling == "cls":
                pooled = hidden[:, 0]
            elif self.pooling == "max":
                pooled = hidden.masked_fill(mask.unsqueeze(-1) == 0, float("-inf")).max(dim=1).values
            elif self.pooling == "last":
                pooled = last_token(hidden, mask)
            else:
                if self.pooling == "mean-nospecial":
                    mask = mask * (1 - special)
                m = mask.unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1)
            return pooled.float().cpu().numpy()

        if not len(texts):
            return np.zeros((0, model.config.hidden_size), np.float32)
        batch = [self.prompt + t for t in texts]
        with torch.inference_mode():
            out = encode_budgeted(batch, token_lengths(tokenizer, batch, self.max_length), forward, self.budget)
        self._config = self._config.model_copy(update={"settings": {**self._config.settings, **self.budget.settings()}})
        return out

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]:
        """Every hidden layer per word (``TokenEncoder``), pieces mean-pooled."""
        torch, tokenizer, model = self._load()
        return hidden_state_tokens(torch, tokenizer, model, sentences, self.max_length, self._config.name)

    def close(self) -> None:
        """Release the weights (they load again on the next encode)."""
        self._loaded = None

    def sentence_transformer(self, device: str) -> Any:
        """This model as a fresh ``SentenceTransformer`` (for full fine-tuning): the checked checkpoint with the
        same pooling and maximum length; the caller prepends the prompt. Other layers than the last and
        ``mean-nospecial`` have no sentence-transformers form: one-line errors, never another model."""
        quiet()
        from sentence_transformers import SentenceTransformer
        from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

        n_layers = _n_layers(self.hf_config)
        if n_layers is not None and self.layer != n_layers:
            raise SpecError(f"{self.where}: layer={self.layer} cannot be fine-tuned as a sentence-transformer "
                            f"(it pools the last layer, {n_layers}); use layer=-1")
        if self.pooling not in ST_POOLING:
            raise SpecError(f"{self.where}: pool={self.pooling} has no sentence-transformers pooling; choose one of "
                            f"{', '.join(ST_POOLING)} to fine-tune")
        # dtype always named: transformers loads a checkpoint at its stored dtype unless told
        kwargs: dict[str, Any] = {"trust_remote_code": self.setup.trust_remote_code,
                                  "dtype": torch_dtype(self.setup.dtype)}
        first = Transformer(str(self.directory), max_seq_length=self.max_length, model_kwargs=kwargs,
                            processor_kwargs={"trust_remote_code": self.setup.trust_remote_code})
        check_loaded_weights(first.auto_model, self.directory, self.where)
        special_tokens(first.tokenizer, self.directory, self.where)
        if first.tokenizer.pad_token is None:
            first.tokenizer.pad_token = first.tokenizer.eos_token or first.tokenizer.unk_token
        pool = Pooling(first.get_embedding_dimension(), pooling_mode=ST_POOLING[self.pooling])
        return SentenceTransformer(modules=[first, pool], device=device)


#: compeval's poolings as sentence-transformers names them (each masks padding as ``encode`` does).
ST_POOLING = {"cls": "cls", "mean": "mean", "max": "max", "last": "lasttoken"}


class HFOptions(HubOptions):
    layer: int = identity_field(-1, show="always", description="0 = input embeddings, negative counts from the end")
    pool: Literal[POOLINGS] = identity_field("mean", param="pooling", show="always",  # type: ignore[valid-type]
                                             description="how token states become one vector")
    max_length: int | None = identity_field(None, ge=1, show="never", description="truncate inputs to N tokens "
                                            "(default: the model's own limit)")
    prompt: str | None = identity_field(None, show="recorded", description=PROMPT_HELP["prompt"])
    prompt_name: str | None = Field(None, description=PROMPT_HELP["prompt_name"])
    instruction: str | None = Field(None, description=PROMPT_HELP["instruction"])
    recipe: RecipeName | None = recipe_setting()

    shown_order: ClassVar[tuple[str, ...]] = ("layer", "pooling", "prompt", "dtype")
    unrecorded: ClassVar[tuple[str, ...]] = ("prompt_name", "instruction")  # folded into prompt


@register_model("hf", 1, "Hugging Face transformer, chosen layer and pooling (Hub repo, local folder or packaged)",
                ("hf:ORG/NAME|PATH|all-MiniLM-L6-v2",), options=HFOptions)
def _hf(resolved, builder):
    opts, where = resolved.options, str(resolved.spec)
    model_arg(resolved.spec)
    # opts: the recipe's defaults in (registry.resolve_model)
    prompt = PromptChoice.from_options(opts, where, template=card_template(resolved.arg, opts.recipe))
    setup = TorchSetup.of(resolved, builder)
    return HFModel(resolved.local_weights(), layer=opts.layer, pooling=opts.pool,
                   max_length=opts.max_length or 512, revision=opts.revision, setup=setup, prompt=prompt,
                   where=where, recipe=opts.recipe, options=opts)

