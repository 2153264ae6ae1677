"""The model interface (structural Protocols, as in mteb v2): a ``config`` and ``encode(texts) -> (n, d)``
and/or ``score_pairs(a, b) -> (n,)``. Tasks know models only through this module; models know nothing of tasks.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator

from .. import plugins
from ..errors import CompevalError, SpecError
from ..names import text_problem
from ..registry import Registry
from ..vectors import cosine_rows

Scalar = str | int | float | bool | None
#: A param's value: a scalar, or one level of named scalars (a part's identity, e.g. dist's back-off model).
ParamValue = Scalar | dict[str, Scalar]


class ModelConfig(BaseModel):
    """Everything that determines a model's output; its ``id`` keys the cache and names results.
    ``location`` (where weights were read) and ``settings`` (device, batch size) leave the output as it is, so
    they stay out of the id."""

    model_config = ConfigDict(frozen=True)

    family: str  # registry name with version, e.g. "static.v1"
    name: str  # short human name, e.g. "glove-6b-50d"
    params: dict[str, ParamValue] = Field(default_factory=dict)
    children: tuple["ModelConfig", ...] = ()
    location: str | None = None
    settings: dict[str, ParamValue] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _shown_as_written(cls, name: str) -> str:
        """A model's name is shown in every table and figure: it follows the rule of names
        (``names.text_problem``, any length), one line (``SpecError``, which pydantic does not wrap)."""
        problem = text_problem(name, "model name", limit=None)
        if problem is not None:
            raise SpecError(problem)
        return name

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
        return self._shown(escape=True)

    def _shown(self, escape: bool) -> str:
        """``display``'s text; ``escape`` writes newlines and tabs in values as ``\\n``/``\\t`` so that a
        message naming the model stays one line (the slug keeps the raw text, so ids do not move)."""
        shown = {k: v for k, v in self.params.items() if k in self.shown_params}
        if not shown:
            return self.name
        text = self.name + "," + ",".join(f"{k}={v}" for k, v in shown.items())
        return text.replace("\n", "\\n").replace("\t", "\\t") if escape else text

    shown_params: tuple[str, ...] = ()

    @property
    def slug(self) -> str:
        """A file-system-safe name for result folders."""
        text = self._shown(escape=False).replace(",", "__").replace("=", "-")
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


# ---------------------------------------------------------------------------------------------------------
# Optional capabilities. A family declares one by having the member; the runner and tasks ask with
# ``isinstance(model, Capability)`` (or the helpers below), never by probing names.


@runtime_checkable
class Loadable(Protocol):
    """Weights load lazily; ``load()`` loads them now (the runner times it apart from encoding)."""

    def load(self) -> None: ...


@runtime_checkable
class Closeable(Protocol):
    """Holds something worth releasing once its jobs are done (weights, connections); it must still work
    afterwards, loading again on demand."""

    def close(self) -> None: ...


@runtime_checkable
class TokenEncoder(Protocol):
    """Word-level vectors: one ``(n_words, n_layers, dim)`` array per pre-tokenised sentence."""

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]: ...


@runtime_checkable
class RoleScorer(Protocol):
    """Per-role similarities of sentence pairs: ``(n, n_roles)``, NaN where a role is not matched."""

    def role_similarity_matrix(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class SentenceTransformerSource(Protocol):
    """Can build a fresh ``sentence_transformers.SentenceTransformer`` of its own weights, pooling and prompt
    (for full fine-tuning, which trains a copy: the model's own weights and cache are never touched).
    ``prompt`` is what the model prepends to every text ("" for none)."""

    def sentence_transformer(self, device: str) -> Any: ...

    @property
    def prompt(self) -> str: ...


@runtime_checkable
class DeclaresResources(Protocol):
    """What one job of this model needs besides CPUs, e.g. ``{"num_gpus": 1}`` or ``{"api": 1}`` (an API
    slot, so a cluster can cap concurrent calls). Ray reserves it; the local executor ignores it."""

    @property
    def resources(self) -> dict[str, float]: ...


@runtime_checkable
class OnDevice(Protocol):
    """Runs on a torch device; a ``cuda`` device means one GPU per job."""

    @property
    def device(self) -> str: ...


@runtime_checkable
class Wrapper(Protocol):
    """Built around one other model (normalisers, role and graph models, the cache)."""

    @property
    def inner(self) -> Any: ...


@runtime_checkable
class Composite(Protocol):
    """Built from several models (e.g. ``mixed:``)."""

    @property
    def parts(self) -> Sequence[Any]: ...


@runtime_checkable
class CachedEncoder(Protocol):
    """A model behind the embedding cache (``compeval.cache.CachedModel``): capabilities of its inner
    model are reached through it, and the runner uses these members to encode each text once."""

    on_progress: Any  # callable(done, total) while encoding, or None

    @property
    def inner(self) -> Any: ...

    @property
    def stats(self) -> Any: ...  # CacheStats of this configuration (as_dict())

    @property
    def cacheable(self) -> bool: ...  # False: vectors depend on the batch, so they are not shared

    def warm(self, texts: Sequence[str]) -> list[str]: ...  # disk -> memory; returns what is missing

    def prime(self, texts: Sequence[str], vectors: np.ndarray) -> None: ...  # vectors encoded elsewhere


def can_encode(model: Any) -> bool:
    return callable(getattr(model, "encode", None)) and getattr(model, "encodes", True)


def can_score_pairs(model: Any) -> bool:
    return callable(getattr(model, "score_pairs", None)) and getattr(model, "scores_pairs", True)


class WrapsModel:
    """A wrapper of ``self.model`` that defines both methods: it says which of them the model really has."""

    @property
    def encodes(self) -> bool:
        return can_encode(self.model)

    @property
    def scores_pairs(self) -> bool:
        return can_score_pairs(self.model)


def capability(model: Any, protocol: type) -> Any | None:
    """``model`` itself if it has the capability, else the model a cache wrapper holds if that has it
    (the cache adds nothing to token or role vectors), else None."""
    while model is not None:
        if isinstance(model, protocol):
            return model
        model = model.inner if isinstance(model, CachedEncoder) else None
    return None


def can_encode_tokens(model: Any) -> bool:
    return capability(model, TokenEncoder) is not None


def token_encoder(model: Any) -> TokenEncoder:
    """The model (or the model behind its cache) that gives word-level vectors, or a clear error."""
    found = capability(model, TokenEncoder)
    if found is None:
        from ..errors import ModelCapabilityError

        display = model.config.display if isinstance(getattr(model, "config", None), ModelConfig) else repr(model)
        raise ModelCapabilityError(
            f"model {display} gives no token-level vectors; this task needs static word vectors, a Hugging "
            "Face or sentence-transformers model, or a model with encode_tokens()")
    return found


def role_scorer(model: Any) -> RoleScorer | None:
    """The model (or the model behind its cache) that gives per-role similarities, else None."""
    return capability(model, RoleScorer)


def sentence_transformer_source(model: Any) -> SentenceTransformerSource | None:
    """The model (or the model behind its cache) that can give a trainable SentenceTransformer, else None."""
    return capability(model, SentenceTransformerSource)


def shares_vectors(model: Any) -> bool:
    """True when the model's vectors may be encoded in one process and used in another."""
    return can_encode(model) and (not isinstance(model, CachedEncoder) or model.cacheable)


def components(model: Any) -> list[Any]:
    """The model and every model it is built from (wrapped or combined), outermost first."""
    out, todo, seen = [], [model], set()
    while todo:
        m = todo.pop(0)
        if m is None or id(m) in seen:
            continue
        seen.add(id(m))
        out.append(m)
        if isinstance(m, Wrapper):
            todo.append(m.inner)
        if isinstance(m, Composite):
            todo.extend(m.parts)
    return out


def declared_resources(model: Any) -> dict[str, float]:
    """What one job of ``model`` needs, merged (maximum) over it and its parts: each part's declared
    ``resources``, and one GPU for a part on a ``cuda`` device."""
    out: dict[str, float] = {}
    for part in components(model):
        wants = dict(part.resources) if isinstance(part, DeclaresResources) else {}
        if isinstance(part, OnDevice) and str(part.device).startswith("cuda"):
            wants["num_gpus"] = max(wants.get("num_gpus", 0), 1)
        for k, v in wants.items():
            out[k] = max(out.get(k, 0), v)
    return out


def embed(model: Any, texts: Sequence[str]) -> tuple[np.ndarray, dict[str, int]]:
    """Encode the unique texts once; returns (matrix, text → row)."""
    unique = list(dict.fromkeys(texts))
    matrix = model.encode(unique)
    return matrix, {t: i for i, t in enumerate(unique)}


def pair_similarity(model: Any, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
    """Similarity of each (a, b) pair: the model's own scores, or cosine of its vectors."""
    if can_score_pairs(model):
        return np.asarray(model.score_pairs(list(texts_a), list(texts_b)), dtype=np.float64)
    if not can_encode(model):
        raise TypeError(f"{model!r} neither encodes nor scores pairs")
    matrix, row = embed(model, list(texts_a) + list(texts_b))
    ia = np.fromiter((row[t] for t in texts_a), dtype=np.int64, count=len(texts_a))
    ib = np.fromiter((row[t] for t in texts_b), dtype=np.int64, count=len(texts_b))
    return cosine_rows(matrix[ia], matrix[ib])


@runtime_checkable
class _Tensor(Protocol):
    def detach(self) -> Any: ...


class ForeignEncoder:
    """Adapts any object with ``encode(list[str])`` to the protocol. Its identity is what it computes
    (``fingerprint.py``), shown in the display name so two objects of one class get separate result folders."""

    def __init__(self, obj: Any, name: str | None = None, params: dict[str, ParamValue] | None = None,
                 sample: Sequence[str] = ()):
        from ..errors import ModelCapabilityError
        from .fingerprint import (FingerprintError, class_identity, combined, declared_digest, tokens_fingerprint,
                                  vectors_fingerprint)

        if not callable(getattr(obj, "encode", None)):
            raise ModelCapabilityError(f"{type(obj).__name__} has no encode(texts) method")
        self._obj = obj
        digest = declared_digest(obj)
        #: Whether its vectors and results may be reused by a later run: only on an identity the object
        #: declares (``compeval_digest``) or when the run opts in (``reuse_objects``); see fingerprint.py.
        self.cross_run_reuse = digest is not None
        try:
            identity = {**class_identity(type(obj)), "vectors": vectors_fingerprint(self.encode)[:16]}
            if sample:  # the run's own texts: what the probe texts miss
                identity["sample"] = vectors_fingerprint(self.encode, list(sample))[:16]
            if isinstance(self, TokenEncoder):  # token vectors are cached by this id too
                identity["tokens"] = tokens_fingerprint(self.encode_tokens)[:16]
        except FingerprintError as exc:
            raise ModelCapabilityError(f"cannot identify the {type(obj).__name__} object by its output: {exc}; "
                                       "fix it or give it a ModelConfig `config` (the protocol)") from None
        if digest is not None:
            identity["compeval_digest"] = digest
        identity.update(params or {})
        identity["fp"] = combined({"name": name, **identity})
        self._config = ModelConfig(family="python.v2", name=name or type(obj).__name__, params=identity,
                                   shown_params=("fp",))

    @property
    def config(self) -> ModelConfig:
        return self._config

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = self._obj.encode(list(texts))
        if isinstance(out, _Tensor):  # a torch tensor (bf16/fp16 ones too: numpy has no bfloat16)
            out = out.detach().float().cpu().numpy()
        if np.iscomplexobj(out):
            from ..errors import ModelOutputError

            raise ModelOutputError(f"{type(self._obj).__name__}.encode returned complex vectors; compeval takes "
                                   "real ones (casting would drop the imaginary part)")
        return np.asarray(out, dtype=np.float32)


class ForeignTokenEncoder(ForeignEncoder):
    """A foreign object that also gives word-level vectors (``encode_tokens``), kept for token tasks."""

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]:
        return [np.asarray(v.detach().float().cpu().numpy() if isinstance(v, _Tensor) else v, dtype=np.float32)
                for v in self._obj.encode_tokens(sentences)]


class IdentifiedModel(WrapsModel):
    """A user's own protocol object (it declares a ``config``) with its content fingerprint added to that
    config, so two instances declaring the same config but computing different things stay apart."""

    def __init__(self, model: Any, sample: Sequence[str] = ()):
        import warnings

        from .fingerprint import (FingerprintError, class_identity, combined, declared_digest, pairs_fingerprint,
                                  tokens_fingerprint, vectors_fingerprint)

        self.model = model
        declared: ModelConfig = model.config
        digest = declared_digest(model)
        self.cross_run_reuse = digest is not None  # as ForeignEncoder's
        extra: dict[str, ParamValue] = dict(class_identity(type(model)))
        if digest is not None:
            extra["compeval_digest"] = digest
        try:
            if can_encode(model):
                extra["vectors"] = vectors_fingerprint(model.encode)[:16]
                if sample:  # the run's own texts: what the probe texts miss
                    extra["sample"] = vectors_fingerprint(model.encode, list(sample))[:16]
            else:
                extra["pairs"] = pairs_fingerprint(model.score_pairs)[:16]
                if sample:
                    extra["sample"] = pairs_fingerprint(model.score_pairs, list(sample))[:16]
            if _has_tokens(model):  # token vectors are cached by this id too
                extra["tokens"] = tokens_fingerprint(model.encode_tokens)[:16]
        except FingerprintError as exc:  # e.g. a graph scorer without graphs for the probe texts
            from ..errors import CompevalWarning

            warnings.warn(f"{declared.display} keeps its declared identity only ({exc})", CompevalWarning,
                          stacklevel=3)
        extra["fp"] = combined({"declared": declared.id, **extra})
        self._config = declared.model_copy(update={
            "params": {**declared.params, **{k: v for k, v in extra.items() if k not in declared.params}},
            "shown_params": tuple(declared.shown_params) + ("fp",),
        })

    @property
    def config(self) -> ModelConfig:
        return self._config

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self.model.encode(texts)

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        return self.model.score_pairs(texts_a, texts_b)

    def __getattr__(self, name: str):  # load(), cacheable, … of the wrapped model
        if name in ("model", "cross_run_reuse"):
            raise AttributeError(name)
        return getattr(self.model, name)


class IdentifiedTokenModel(IdentifiedModel):
    """``IdentifiedModel`` of an object with ``encode_tokens``: declared on the class, since capability
    checks (``isinstance`` of a runtime protocol) do not see members reached through ``__getattr__``
    from Python 3.12 on."""

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]:
        return self.model.encode_tokens(sentences)


def _has_tokens(obj: Any) -> bool:
    return callable(getattr(obj, "encode_tokens", None))


def _built_by_compeval(obj: Any) -> bool:
    """Models built from spec strings carry configs compeval derived (weights hashes, options): trusted."""
    return type(obj).__module__.split(".")[0] == "compeval"


def _discover_adapters() -> None:
    plugins.discover("compeval.models.families")


#: Adapters for other libraries' model objects, by the library they adapt: ``fn(obj) -> compeval model | None``.
#: A model module registers its own (``mteb_models`` for MTEB v2 encoders), so this module imports none of them.
OBJECT_ADAPTERS: Registry[Callable[[Any], Any]] = Registry("model object adapter", group="compeval.models",
                                                           discover=_discover_adapters)


def register_object_adapter(name: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Decorator: ``fn`` adapts other objects to compeval models (``as_model`` asks it) under ``name``."""
    return lambda fn: OBJECT_ADAPTERS.register(name, fn)


def as_model(obj: Any, name: str | None = None, params: dict[str, ParamValue] | None = None,
             sample: Sequence[str] = ()) -> Any:
    """A compeval model as is; any other object wrapped and identified by its output (adapters, then
    ``ForeignEncoder``), ``encode_tokens`` kept. ``sample``: the run's texts the fingerprint also covers."""
    if isinstance(getattr(obj, "config", None), ModelConfig) and (can_encode(obj) or can_score_pairs(obj)):
        if _built_by_compeval(obj):
            return obj
        return (IdentifiedTokenModel if _has_tokens(obj) else IdentifiedModel)(obj, sample)
    for key, adapt in OBJECT_ADAPTERS.items():
        try:
            adapted = adapt(obj)
        except Exception as exc:  # noqa: BLE001 - a plug-in's bug fails this model alone, named
            raise CompevalError(f"model object adapter {key!r} ({OBJECT_ADAPTERS.origin(key)}) failed on a "
                                f"{type(obj).__name__}: {type(exc).__name__}: {exc}") from exc
        if adapted is not None:
            return (IdentifiedTokenModel if _has_tokens(adapted) else IdentifiedModel)(adapted, sample)
    return (ForeignTokenEncoder if _has_tokens(obj) else ForeignEncoder)(obj, name=name, params=params, sample=sample)
