"""Plain Hugging Face transformers with a chosen layer and pooling.

layer 0 = input embeddings … L = last layer (negative counts from the end); pooling ``cls``, ``mean``
(all tokens, special ones included, as the STS3k authors did), ``mean-nospecial`` or ``last`` (the
last non-padding token, as decoder-only LLM embedders such as e5-mistral pool; right for left and
right padding alike). ``prompt`` is prepended to every text (instruction-tuned embedders).
"""
from __future__ import annotations

import json
from importlib import metadata
from typing import Any, Sequence

import numpy as np

from ..context import resolve_device
from ..errors import SpecError
from .batching import Budget, encode_budgeted, family_default, token_lengths
from .options import Opt
from .protocol import ModelConfig
from .registry import register_model
from .tokens import hidden_state_tokens
from .transformers_common import HUB_OPTIONS, TorchSetup, check_remote_code, quiet, resolve, torch_dtype

POOLINGS = ("cls", "mean", "mean-nospecial", "last")


def _n_layers(config: dict) -> int | None:
    for c in (config, config.get("text_config") or {}):
        if isinstance(c.get("num_hidden_layers"), int):
            return c["num_hidden_layers"]
    return None


def last_token(hidden: Any, mask: Any) -> Any:
    """Each row's state at its last attended position: right padding (…, t, pad, pad) and left padding
    (pad, pad, …, t) alike, as the position of the last 1 in the attention mask."""
    import torch

    positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
    last = (positions * mask.long()).argmax(dim=1)
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), last]


class HFModel:
    def __init__(self, path_or_name: str, layer: int = -1, pooling: str = "mean", batch_size: int = 32,
                 max_length: int = 512, *, revision: str | None = None, setup: TorchSetup | None = None,
                 prompt: str = "", where: str | None = None):
        if pooling not in POOLINGS:
            raise SpecError(f"pooling {pooling!r} unknown; choose one of {', '.join(POOLINGS)}")
        where = where or f"hf:{path_or_name}"
        setup = setup or TorchSetup(batch=batch_size, max_length=max_length)
        weights = resolve(path_or_name, revision)
        directory = weights.directory
        config_file = directory / "config.json"
        if not config_file.is_file():
            raise SpecError(f"{directory} has no config.json: not a Hugging Face model directory")
        check_remote_code(weights, setup, where)
        n_layers = _n_layers(json.loads(config_file.read_text()))
        resolved = layer if layer >= 0 or n_layers is None else n_layers + 1 + layer
        if n_layers is not None and not 0 <= resolved <= n_layers:
            raise SpecError(f"{weights.name} has layers 0..{n_layers} (0 = input embeddings); got layer={layer}")
        self.directory, self.weights, self.setup = directory, weights, setup
        self.layer, self.pooling, self.prompt = resolved, pooling, prompt
        self.batch_size, self.max_length = setup.batch, setup.max_length or max_length
        setup.max_batch_tokens = setup.max_batch_tokens or family_default("hf")
        self.budget = Budget(setup.max_batch_tokens, max_texts=setup.batch)
        self._loaded = None
        params: dict[str, Any] = {"weights": weights.weights, "layer": resolved, "pooling": pooling,
                                  "max_length": self.max_length, "transformers": metadata.version("transformers")}
        if weights.commit:
            params["revision"] = weights.commit
        if prompt:
            params["prompt"] = prompt
        params.update(setup.identity())
        shown = ("layer", "pooling") + tuple(k for k in ("dtype", "prompt") if k in params)
        self._config = ModelConfig(family="hf.v1", name=weights.name, params=params, shown_params=shown,
                                   location=str(directory), settings=setup.settings())

    def load(self) -> None:
        """Load the weights now (the runner times this apart from encoding)."""
        self._load()

    @property
    def device(self) -> str:
        """The torch device (``OnDevice``), resolved on first use; a run setting, not identity."""
        return resolve_device(self.setup.device)

    def _load(self):
        """Weights load on first use (a re-run with every result present never imports torch)."""
        if self._loaded is None:
            quiet()
            import torch
            from transformers import AutoModel, AutoTokenizer

            device = self.device
            remote = self.setup.trust_remote_code
            tokenizer = AutoTokenizer.from_pretrained(str(self.directory), trust_remote_code=remote)
            if tokenizer.pad_token is None:  # decoder tokenizers (Llama, Mistral) often have none
                tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
            model = AutoModel.from_pretrained(str(self.directory), output_hidden_states=True,
                                              dtype=torch_dtype(self.setup.dtype), trust_remote_code=remote)
            model = model.to(device).eval()
            self._loaded = (torch, tokenizer, model)
            self._config = self._config.model_copy(update={"settings": self.setup.settings(device)})
        return self._loaded

    @property
    def config(self) -> ModelConfig:
        return self._config

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


@register_model("hf", 1, "Hugging Face transformer, chosen layer and pooling (Hub repo, local folder or packaged)",
                ("hf:ORG/NAME|PATH|all-MiniLM-L6-v2",), extra="transformers", torch=True,
                options=(Opt("layer", -1, int, help="0 = input embeddings, negative counts from the end"),
                         Opt("pool", "mean", choices=POOLINGS, help="how token states become one vector"),
                         Opt("prompt", "", help='text prepended to every input; quote it: prompt="query: "'),
                         *HUB_OPTIONS))
def _hf(spec, builder, opts):
    where = str(spec)
    setup = TorchSetup.from_options(opts, builder, where)
    return HFModel(spec.arg or "all-MiniLM-L6-v2", layer=opts.layer, pooling=opts.pool,
                   max_length=opts.max_length or 512, revision=opts.revision, setup=setup, prompt=opts.prompt,
                   where=where)
