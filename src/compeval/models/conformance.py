"""``check_model``: the checks every model passes (like scikit-learn's check_estimator), catching what silently
corrupts scores (rows out of order, batch-dependent outputs, NaNs, unstable configuration ids).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import InputTextError, ModelOutputError
from .protocol import ModelConfig, can_encode, can_score_pairs

CHECK_TEXTS = (
    "the lawyer attacked the judge",
    "the judge attacked the lawyer",
    "a small dog slept on the old sofa",
    "fake gun",
    "gun",
    "the lawyer attacked the judge",  # a repeat on purpose
)


class ConformanceError(AssertionError):
    """A model broke the protocol; the message names the check."""


def _fail(name: str, msg: str):
    raise ConformanceError(f"[{name}] {msg}")


def check_config(model: Any, rebuild: Callable[[], Any] | None = None) -> None:
    cfg = getattr(model, "config", None)
    if not isinstance(cfg, ModelConfig):
        _fail("config", f"model.config must be a ModelConfig, got {type(cfg).__name__}")
    if not cfg.id or not cfg.name or not cfg.family:
        _fail("config", "config needs family, name and a non-empty id")
    if rebuild is not None and rebuild().config.id != cfg.id:
        _fail("config", "building the same spec twice gave different configuration ids")


def _same_size(first: np.ndarray, later: np.ndarray, what: str) -> None:
    """One vector size on every call: a size that changes makes cached and fresh vectors incomparable
    (today's vectors beside yesterday's in one cosine), so it is a broken rule, not a numpy error."""
    if later.ndim != 2 or later.shape[1:] != first.shape[1:]:
        _fail("vector-size", f"the vector size changed between calls: {first.shape[1]} at first, "
                             f"{later.shape[1] if later.ndim == 2 else later.shape} for {what}")


def check_encoder(model: Any, texts=CHECK_TEXTS, atol: float = 1e-4) -> None:
    texts = list(texts)
    full = np.asarray(model.encode(texts))
    if full.ndim != 2 or full.shape[0] != len(texts) or full.shape[1] == 0:
        _fail("shape", f"encode(n texts) must return (n, d) with d ≥ 1; got {full.shape} for n={len(texts)}")
    if np.iscomplexobj(full):
        _fail("dtype", f"vectors must be real numbers, got {full.dtype} (casting would drop the imaginary part)")
    if not np.issubdtype(full.dtype, np.floating):
        _fail("dtype", f"vectors must be floats, got {full.dtype}")
    if not np.isfinite(full).all():
        _fail("finite", "encode returned NaN or infinite values on ordinary English text")
    if not np.allclose(full[0], full[5], atol=atol):
        _fail("deterministic", "the same text in one batch got different vectors")
    again = np.asarray(model.encode(texts))
    _same_size(full, again, "encoding the same batch twice")
    if not np.allclose(full, again, atol=atol):
        _fail("deterministic", "encoding the same batch twice gave different vectors")
    rev = np.asarray(model.encode(texts[::-1]))[::-1]
    _same_size(full, rev, "the reversed batch")
    if not np.allclose(full, rev, atol=atol):
        _fail("order", "rows do not follow the order of the input texts (reversed batch differs)")
    parts = [np.asarray(model.encode([t])) for t in texts[:3]]
    for part in parts:
        _same_size(full[:1], part, "a one-text batch")
    singles = np.concatenate(parts)
    if not np.allclose(full[:3], singles, atol=atol):
        _fail("batch-invariance", "a text's vector depends on the other texts in its batch")
    empty = np.asarray(model.encode([]))
    if empty.shape[0] != 0:
        _fail("empty-batch", f"encode([]) must return 0 rows, got shape {empty.shape}")


def check_pair_scorer(model: Any, texts=CHECK_TEXTS) -> None:
    a, b = list(texts[:4]), list(texts[1:5])
    scores = np.asarray(model.score_pairs(a, b), dtype=np.float64)
    if scores.shape != (len(a),):
        _fail("pair-shape", f"score_pairs(n pairs) must return (n,); got {scores.shape}")
    if np.isinf(scores).any():
        _fail("pair-finite", "score_pairs returned infinite values (NaN is allowed: a missing score)")
    again = np.asarray(model.score_pairs(a, b), dtype=np.float64)
    if not np.allclose(scores, again, equal_nan=True, atol=1e-6):
        _fail("pair-deterministic", "scoring the same pairs twice gave different scores")
    if getattr(model, "cacheable", True):
        single = np.asarray(model.score_pairs(a[:1], b[:1]), dtype=np.float64)
        if not np.allclose(single, scores[:1], equal_nan=True, atol=1e-6):
            _fail("pair-batch-invariance", "a pair's score depends on the other pairs in the call")


def check_model(model: Any, rebuild: Callable[[], Any] | None = None, texts=CHECK_TEXTS) -> None:
    """Raise ``ConformanceError`` naming the first broken rule; return None if the model conforms."""
    check_config(model, rebuild)
    enc, pairs = can_encode(model), can_score_pairs(model)
    if not (enc or pairs):
        _fail("capability", "a model needs encode(texts) and/or score_pairs(texts_a, texts_b)")
    if enc:
        check_encoder(model, texts)
    if pairs:
        check_pair_scorer(model, texts)


class ConformanceFailure(ModelOutputError):
    """A Python model object failed a conformance check before use: that model's error, not the run's."""


def check_before_use(model: Any, label: str) -> None:
    """The cheap checks of ``check_model`` on a model given as a Python object, before ``run`` uses it: such a
    model otherwise gives wrong numbers, or a new identity on every run. A model whose own call raises is left
    to fail in its jobs, where the traceback is logged."""
    try:
        if can_encode(model):
            check_encoder(model)
        if can_score_pairs(model):
            check_pair_scorer(model)
    except ConformanceError as exc:
        raise ConformanceFailure(f"{label} fails a model conformance check: {exc} "
                                 "(compeval.models.conformance.check_model)") from None
    except Exception:  # the model itself raises: its jobs fail with that error and its traceback logged
        return


def check_rejects_empty_text(cached_model: Any) -> None:
    """Behind the cache, an empty text must raise a clear InputTextError, never a silent vector."""
    try:
        if can_encode(cached_model):
            cached_model.encode(["fine", "  "])
        else:
            cached_model.score_pairs(["fine"], [""])
    except InputTextError:
        return
    _fail("empty-text", "an empty text was accepted without an InputTextError")
