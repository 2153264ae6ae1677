"""Content identity for Python objects, which have no spec: their output on a versioned probe set and a
sample of the run's texts, plus their class, so outputs that differ in any bit never share cache entries or
results. An object may declare its own (``DIGEST_ATTRIBUTE``).
"""
from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import inspect
import json
import sys
from typing import Any, Callable, Sequence

import numpy as np

PROBE_VERSION = 1

_PASSAGE = (
    "The committee met on a grey Tuesday morning to consider the proposal that had divided the town for "
    "months. Supporters argued that the new bridge would shorten journeys, bring shoppers to the old market "
    "and let ambulances reach the northern villages in half the time. Opponents replied that the cost had "
    "doubled since the first estimate, that the river banks were home to rare birds, and that nobody had "
    "asked the fishermen whose boats would have to pass beneath it. After three hours of speeches, a "
    "retired engineer stood up and explained, slowly and with drawings, why the second design was both "
    "cheaper and quieter than the first; the room fell silent, several members changed their minds, and the "
    "vote was postponed until the drawings could be checked by an independent firm. "
)

PROBE_TEXTS: tuple[str, ...] = (
    "dog",
    "bank",
    "run",
    "the",
    "red car",
    "old man",
    "heavy rain",
    "river bank",
    "The cat sat on the mat.",
    "The mat sat on the cat.",
    "A man is playing a guitar.",
    "A woman is slicing an onion.",
    "The dog chased the postman down the street.",
    "The postman chased the dog down the street.",
    "The teacher gave the student a book yesterday.",
    "The student was given a book by the teacher.",
    "Nobody believed that the old bridge would survive the flood.",
    "She did not sell the house in the spring.",
    "Children are playing football in the park while their parents watch.",
    "Is it going to rain tomorrow?",
    "Wow! That was unexpected...",
    "In 1969, 3 astronauts flew 384,400 km to the Moon.",
    "Prices rose by 4.5% in March (the highest since 2008).",
    "Café owners in Zürich serve crème brûlée and smørrebrød.",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "東京は日本の首都です。",
    "e-mail @user #hashtag https://example.org",
    "A quick brown fox jumps over the lazy dog; the dog, however, does not notice.",
    "Although the experiment failed twice, the researchers, who had worked on it for years, refused to "
    "give up and finally published their results in a small journal.",
    "colorless green ideas sleep furiously",
    "UPPER CASE TEXT SHOUTS LOUDLY",
    "   leading and trailing spaces   ",
    _PASSAGE * 5,  # about 800 word pieces: longer than any usual max_seq_length
)


#: Texts of the run's own tasks added to the probe set (``sample_texts``).
SAMPLE_SIZE = 64
#: The attribute by which a Python object declares its own identity (a non-empty string).
DIGEST_ATTRIBUTE = "compeval_digest"


def sample_texts(texts: Sequence[str], size: int = SAMPLE_SIZE) -> list[str]:
    """Up to ``size`` distinct non-blank texts of ``texts``, the ones with the smallest SHA-256: the same
    texts give the same sample whatever their order, and a sample spreads over every task of the run."""
    unique = {t for t in texts if isinstance(t, str) and t.strip()}
    return sorted(unique, key=lambda t: hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest())[:size]


def declared_digest(obj: Any) -> str | None:
    """The object's own ``compeval_digest``, or None; anything but a non-empty string is an error."""
    value = getattr(obj, DIGEST_ATTRIBUTE, None)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        from ..errors import ModelCapabilityError

        raise ModelCapabilityError(f"{type(obj).__name__}.{DIGEST_ATTRIBUTE} is {value!r}: give a non-empty "
                                   "string that changes whenever what the object computes changes")
    return value


class FingerprintError(ValueError):
    """The object's output on the probe set cannot be fingerprinted (it raised, or returned a bad shape)."""


def _hash_array(h: "hashlib._Hash", arr: np.ndarray) -> None:
    arr = np.ascontiguousarray(arr)
    h.update(f"{arr.dtype.str}{arr.shape}".encode())
    h.update(arr.tobytes())


def vectors_fingerprint(encode: Callable[[list[str]], Any], texts: Sequence[str] = PROBE_TEXTS) -> str:
    """SHA-256 of ``encode(texts)`` as float32 (shape included); one call, so batching is always the same."""
    try:
        out = encode(list(texts))
    except Exception as exc:
        raise FingerprintError(f"encode() failed on the probe texts ({type(exc).__name__}: {exc})") from exc
    arr = _to_numpy(out)
    if arr.ndim != 2 or arr.shape[0] != len(texts):
        raise FingerprintError(f"encode() returned shape {arr.shape} for {len(texts)} probe texts; "
                               "expected (n_texts, dim)")
    h = hashlib.sha256(f"probe.v{PROBE_VERSION}:vectors".encode())
    _hash_array(h, arr.astype(np.float32, copy=False))
    return h.hexdigest()


def pairs_fingerprint(score_pairs: Callable[[list[str], list[str]], Any],
                      texts: Sequence[str] = PROBE_TEXTS) -> str:
    """SHA-256 of the scores of fixed probe pairs (each probe text against the next), for pair scorers."""
    a = list(texts)
    b = a[1:] + a[:1]
    try:
        out = _to_numpy(score_pairs(a, b))
    except Exception as exc:
        raise FingerprintError(f"score_pairs() failed on the probe pairs ({type(exc).__name__}: {exc})") from exc
    if out.shape != (len(a),):
        raise FingerprintError(f"score_pairs() returned shape {out.shape} for {len(a)} probe pairs")
    h = hashlib.sha256(f"probe.v{PROBE_VERSION}:pairs".encode())
    _hash_array(h, out.astype(np.float64, copy=False))
    return h.hexdigest()


def tokens_fingerprint(encode_tokens: Callable[[list[list[str]]], Any],
                       texts: Sequence[str] = PROBE_TEXTS[:-1]) -> str:
    """SHA-256 of ``encode_tokens`` on the probe texts split at spaces (one ``(n_words, n_layers, dim)`` or
    ``(n_words, dim)`` array per sentence), for objects that give word-level vectors."""
    sentences = [t.split() for t in texts]
    try:
        out = list(encode_tokens(sentences))
    except Exception as exc:
        raise FingerprintError(f"encode_tokens() failed on the probe sentences ({type(exc).__name__}: {exc})") from exc
    h = hashlib.sha256(f"probe.v{PROBE_VERSION}:tokens".encode())
    if len(out) != len(sentences):
        raise FingerprintError(f"encode_tokens() returned {len(out)} arrays for {len(sentences)} probe sentences")
    for words, vec in zip(sentences, out):
        arr = _to_numpy(vec)
        if arr.ndim not in (2, 3) or arr.shape[0] != len(words):
            raise FingerprintError(f"encode_tokens() returned shape {arr.shape} for a sentence of {len(words)} "
                                   "words; expected (n_words, n_layers, dim) or (n_words, dim)")
        _hash_array(h, arr.astype(np.float32, copy=False))
    return h.hexdigest()


def _to_numpy(out: Any) -> np.ndarray:
    if hasattr(out, "detach"):  # a torch tensor
        out = out.detach().float().cpu().numpy()
    return np.asarray(out)


def class_identity(cls: type) -> dict[str, str]:
    """Module + qualified name, the source hash of the class and of every class it inherits from outside
    the standard library (so editing a method gives a new identity), and the version of the distribution
    the class comes from when it is an installed package."""
    return dict(_class_identity(cls))


@functools.lru_cache(maxsize=256)
def _class_identity(cls: type) -> tuple[tuple[str, str], ...]:
    out = {"class": f"{cls.__module__}.{cls.__qualname__}"}
    h = hashlib.sha256()
    readable = False
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] in sys.stdlib_module_names or klass.__module__ == "builtins":
            continue
        h.update(f"{klass.__module__}.{klass.__qualname__}\0".encode())
        try:
            h.update(inspect.getsource(klass).encode())
            readable = True
        except (OSError, TypeError):  # defined in a REPL, C extension: the vectors still tell instances apart
            h.update(b"<no source>")
    if readable:
        out["class_source"] = h.hexdigest()[:16]
    version = _distribution_version(cls.__module__)
    if version:
        out["package"] = version
    return tuple(out.items())


@functools.lru_cache(maxsize=1)
def _packages() -> dict[str, list[str]]:
    try:
        return importlib.metadata.packages_distributions()
    except Exception:  # broken metadata of some unrelated package
        return {}


def _distribution_version(module: str) -> str | None:
    dists = _packages().get(module.split(".")[0]) or []
    for dist in dists:
        try:
            return f"{dist}=={importlib.metadata.version(dist)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def combined(parts: dict[str, Any]) -> str:
    """12 hex characters over every part: short enough to show in a results folder name."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:12]
