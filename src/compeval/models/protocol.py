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
    prompt…); ``location`` holds where the weights were read from, which does not change the output
    and so is not part of the id.
    """

    model_config = ConfigDict(frozen=True)

    family: str  # registry name with version, e.g. "static.v1"
    name: str  # short human name, e.g. "glove-6b-50d"
    params: dict[str, ParamValue] = Field(default_factory=dict)
    children: tuple["ModelConfig", ...] = ()
    location: str | None = None

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
    """Adapts any object with ``encode(list[str])`` (e.g. a SentenceTransformer) to the protocol.

    Its identity is what it computes (``fingerprint.py``): its vectors on a fixed probe set, its class
    (name, source hash, package version) and any ``name``/``params`` given. The short fingerprint is shown
    in the display name, so two objects of one class get separate cache entries *and* result folders.
    """

    def __init__(self, obj: Any, name: str | None = None, params: dict[str, ParamValue] | None = None):
        from ..errors import ModelCapabilityError
        from .fingerprint import FingerprintError, class_identity, combined, vectors_fingerprint

        if not callable(getattr(obj, "encode", None)):
            raise ModelCapabilityError(f"{type(obj).__name__} has no encode(texts) method")
        self._obj = obj
        try:
            vectors = vectors_fingerprint(self.encode)
        except FingerprintError as exc:
            raise ModelCapabilityError(f"cannot identify the {type(obj).__name__} object by its output: {exc}; "
                                       "fix its encode() or give it a ModelConfig `config` (the protocol)") from None
        identity = {**class_identity(type(obj)), "vectors": vectors[:16], **(params or {})}
        identity["fp"] = combined({"name": name, **identity})
        self._config = ModelConfig(family="python.v2", name=name or type(obj).__name__, params=identity,
                                   shown_params=("fp",))

    @property
    def config(self) -> ModelConfig:
        return self._config

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = self._obj.encode(list(texts))
        if hasattr(out, "detach"):
            out = out.detach().float().cpu().numpy()
        return np.asarray(out, dtype=np.float32)


class IdentifiedModel:
    """A user's own protocol object (it declares a ``config``) with its content fingerprint added to that
    config, so two instances declaring the same config but computing different things stay apart."""

    def __init__(self, model: Any):
        import warnings

        from .fingerprint import (FingerprintError, class_identity, combined, pairs_fingerprint,
                                  vectors_fingerprint)

        self.model = model
        declared: ModelConfig = model.config
        extra: dict[str, ParamValue] = dict(class_identity(type(model)))
        try:
            if can_encode(model):
                extra["vectors"] = vectors_fingerprint(model.encode)[:16]
            else:
                extra["pairs"] = pairs_fingerprint(model.score_pairs)[:16]
        except FingerprintError as exc:  # e.g. a graph scorer without graphs for the probe texts
            warnings.warn(f"compeval: {declared.display} keeps its declared identity only ({exc})", stacklevel=3)
        extra["fp"] = combined({"declared": declared.id, **extra})
        self._config = declared.model_copy(update={
            "params": {**declared.params, **{k: v for k, v in extra.items() if k not in declared.params}},
            "shown_params": tuple(declared.shown_params) + ("fp",),
        })

    @property
    def config(self) -> ModelConfig:
        return self._config

    @property
    def encodes(self) -> bool:
        return can_encode(self.model)

    @property
    def scores_pairs(self) -> bool:
        return can_score_pairs(self.model)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self.model.encode(texts)

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        return self.model.score_pairs(texts_a, texts_b)

    def __getattr__(self, name: str):  # load(), cacheable, … of the wrapped model
        if name == "model":
            raise AttributeError(name)
        return getattr(self.model, name)


def _built_by_compeval(obj: Any) -> bool:
    """Models built from spec strings carry configs compeval derived (weights hashes, options): trusted."""
    return type(obj).__module__.split(".")[0] == "compeval"


def as_model(obj: Any, name: str | None = None, params: dict[str, ParamValue] | None = None) -> Any:
    """A compeval model as is; a user's protocol object with its fingerprint added to its config; any other
    object with ``encode`` wrapped and identified by its output (``ForeignEncoder``)."""
    if isinstance(getattr(obj, "config", None), ModelConfig) and (can_encode(obj) or can_score_pairs(obj)):
        return obj if _built_by_compeval(obj) else IdentifiedModel(obj)
    if getattr(obj, "mteb_model_meta", None) is not None and callable(getattr(obj, "encode", None)):
        from .mteb_models import from_mteb_object  # an MTEB v2 encoder: encode() wants a DataLoader

        return IdentifiedModel(from_mteb_object(obj))
    return ForeignEncoder(obj, name=name, params=params)
