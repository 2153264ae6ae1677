"""The one model interface every family implements (a structural Protocol, as in mteb v2).

A model is anything with a ``config`` (what exactly produced a score) and at least one of
``encode(texts) -> (n, d) float array`` or ``score_pairs(texts_a, texts_b) -> (n,) float array``.
Tasks know models only through this module; models know nothing of tasks.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, computed_field

ParamValue = str | int | float | bool | None


class ModelConfig(BaseModel):
    """Everything that determines a model's output. Its ``id`` keys the cache and names results.

    ``params`` hold identity (weights hash, operator, layer, pooling, tokenisation, normalisation,
    prompt…); ``location`` holds where the weights were read from, and ``settings`` how the model was
    run (device, batch size); neither changes the output, so neither is part of the id.
    """

    model_config = ConfigDict(frozen=True)

    family: str  # registry name with version, e.g. "static.v1"
    name: str  # short human name, e.g. "glove-6b-50d"
    params: dict[str, ParamValue] = Field(default_factory=dict)
    children: tuple["ModelConfig", ...] = ()
    location: str | None = None
    settings: dict[str, ParamValue] = Field(default_factory=dict)

    @computed_field  # type: ignore[misc]
    @property
    def id(self) -> str:
        payload = json.dumps(
            {
                "family": self.family,
                "name": self.name,
                "params": self.params,
                "children": [c.id for c in self.children],
            },
            sort_keys=True,
            default=str,
        )
        return f"{self.slug}-{hashlib.sha256(payload.encode()).hexdigest()[:12]}"

    @property
    def display(self) -> str:
        """``name`` plus the options a user set away from the family defaults."""
        shown = {k: v for k, v in self.params.items() if k in self.shown_params}
        if not shown:
            return self.name
        return self.name + "," + ",".join(f"{k}={v}" for k, v in shown.items())

    shown_params: tuple[str, ...] = ()

    @property
    def slug(self) -> str:
        """A file-system-safe name for result folders."""
        text = self.display.replace(",", "__").replace("=", "-")
        out = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)
        return out.strip("_")[:120] or "model"


@runtime_checkable
class Encoder(Protocol):
    """Maps texts to vectors. Rows of the result follow the order of ``texts``."""

    @property
    def config(self) -> ModelConfig: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class PairScorer(Protocol):
    """Scores text pairs directly, for models that are not one vector per sentence."""

    @property
    def config(self) -> ModelConfig: ...

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray: ...


Model = Encoder | PairScorer


def can_encode(model: Any) -> bool:
    return callable(getattr(model, "encode", None)) and getattr(model, "encodes", True)


def can_score_pairs(model: Any) -> bool:
    return callable(getattr(model, "score_pairs", None)) and getattr(model, "scores_pairs", True)


class ForeignEncoder:
    """Adapts any object with ``encode(list[str])`` (e.g. a SentenceTransformer) to the protocol."""

    def __init__(self, obj: Any, name: str | None = None, params: dict[str, ParamValue] | None = None):
        if not callable(getattr(obj, "encode", None)):
            raise TypeError(f"{type(obj).__name__} has no encode(texts) method")
        self._obj = obj
        cls = f"{type(obj).__module__}.{type(obj).__qualname__}"
        self._config = ModelConfig(
            family="python.v1", name=name or type(obj).__name__, params={"class": cls, **(params or {})}
        )

    @property
    def config(self) -> ModelConfig:
        return self._config

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = self._obj.encode(list(texts))
        if hasattr(out, "detach"):
            out = out.detach().cpu().numpy()
        return np.asarray(out, dtype=np.float32)


def as_model(obj: Any, name: str | None = None) -> Any:
    """Return ``obj`` if it already follows the protocol, else wrap an object with ``encode``."""
    if isinstance(getattr(obj, "config", None), ModelConfig) and (can_encode(obj) or can_score_pairs(obj)):
        return obj
    return ForeignEncoder(obj, name=name)
