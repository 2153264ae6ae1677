"""Plain Hugging Face transformers with a chosen layer and pooling.

layer 0 = input embeddings … L = last layer (negative counts from the end); pooling ``cls``, ``mean``
(all tokens, special ones included, as the STS3k authors did) or ``mean-nospecial``.
"""
from __future__ import annotations

import json
from importlib import metadata
from typing import Sequence

import numpy as np

from ..errors import SpecError
from ..specs import pop_option, reject_unknown
from .protocol import ModelConfig
from .registry import register_model
from .tokens import hidden_state_tokens
from .transformers_common import offline, resolve_weights

POOLINGS = ("cls", "mean", "mean-nospecial")


class HFModel:
    def __init__(self, path_or_name: str, layer: int = -1, pooling: str = "mean", batch_size: int = 32,
                 max_length: int = 512):
        if pooling not in POOLINGS:
            raise SpecError(f"pooling {pooling!r} unknown; choose one of {', '.join(POOLINGS)}")
        directory, name, weights = resolve_weights(path_or_name)
        config_file = directory / "config.json"
        if not config_file.is_file():
            raise SpecError(f"{directory} has no config.json: not a Hugging Face model directory")
        n_layers = int(json.loads(config_file.read_text())["num_hidden_layers"])
        resolved = layer if layer >= 0 else n_layers + 1 + layer
        if not 0 <= resolved <= n_layers:
            raise SpecError(f"{name} has layers 0..{n_layers} (0 = input embeddings); got layer={layer}")
        self.directory = directory
        self.layer, self.pooling, self.batch_size, self.max_length = resolved, pooling, batch_size, max_length
        self._loaded = None
        self._config = ModelConfig(
            family="hf.v1", name=name,
            params={"weights": weights, "layer": resolved, "pooling": pooling, "max_length": max_length,
                    "transformers": metadata.version("transformers")},
            shown_params=("layer", "pooling"), location=str(directory),
        )

    def load(self) -> None:
        """Load the weights now (the runner times this apart from encoding)."""
        self._load()

    def _load(self):
        """Weights load on first use (a re-run with every result present never imports torch)."""
        if self._loaded is None:
            offline()
            import torch
            from transformers import AutoModel, AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(str(self.directory))
            model = AutoModel.from_pretrained(str(self.directory), output_hidden_states=True).eval()
            self._loaded = (torch, tokenizer, model)
        return self._loaded

    @property
    def config(self) -> ModelConfig:
        return self._config

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        torch, tokenizer, model = self._load()
        out = []
        with torch.inference_mode():
            for i in range(0, len(texts), self.batch_size):
                batch = list(texts[i : i + self.batch_size])
                enc = tokenizer(batch, padding=True, truncation=True, max_length=self.max_length,
                                     return_tensors="pt", return_special_tokens_mask=True)
                special = enc.pop("special_tokens_mask")
                hidden = model(**enc).hidden_states[self.layer]
                if self.pooling == "cls":
                    pooled = hidden[:, 0]
                else:
                    mask = enc["attention_mask"].clone()
                    if self.pooling == "mean-nospecial":
                        mask = mask * (1 - special)
                    m = mask.unsqueeze(-1).to(hidden.dtype)
                    pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1)
                out.append(pooled.float().numpy())
        return np.concatenate(out) if out else np.zeros((0, model.config.hidden_size), np.float32)

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]:
        """Every hidden layer per word (``TokenEncoder``), pieces mean-pooled."""
        torch, tokenizer, model = self._load()
        return hidden_state_tokens(torch, tokenizer, model, sentences, self.max_length, self._config.name)

    def close(self) -> None:
        """Release the weights (they load again on the next encode)."""
        self._loaded = None


@register_model("hf", 1, "Hugging Face transformer, chosen layer and pooling",
                ("hf:all-MiniLM-L6-v2|PATH[,layer=-1][,pool=cls|mean|mean-nospecial][,batch_size=32]",),
                extra="transformers")
def _hf(spec, builder):
    opts = dict(spec.options)
    s = str(spec)
    layer = pop_option(opts, "layer", -1, int, spec=s)
    pooling = pop_option(opts, "pool", "mean", choices=POOLINGS, spec=s)
    batch_size = pop_option(opts, "batch_size", builder.batch_size or 32, int, spec=s, low=1)
    reject_unknown(opts, s, ["layer", "pool", "batch_size", "norm"])
    return HFModel(spec.arg or "all-MiniLM-L6-v2", layer=layer, pooling=pooling, batch_size=batch_size)
