"""Lists of model specs for sweeps: a file, a query of mteb's offline registry (``mteb:lang=eng,max_params=8e9``)
or ``compeval:sweep`` (``models/sweep.txt``, pinned to mteb's revisions).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from .. import textfile
from ..errors import CompevalError, SpecError

PINNED = {"sweep": Path(__file__).with_name("sweep.txt")}

#: mteb:QUERY keys → what they select; values are comma-separated ``key=value`` pairs.
QUERY_KEYS = {
    "lang": "an ISO 639-3 language among the model's (eng, deu…); '|' between several",
    "min_params": "at least this many parameters (8e9, 110e6 or 110000000)",
    "max_params": "at most this many parameters",
    "open_weights": "true | false",
    "type": "mteb's model type (default dense: embedders; cross-encoder, late-interaction…)",
    "framework": "one of the model's frameworks (Sentence Transformers, PyTorch…)",
    "released_after": "release date on or after YYYY-MM-DD",
    "name": "a regular expression the model's name must contain a match of",
    "limit": "at most this many models (the most recent first among equals is not implied: registry order)",
}


def read_models_file(path: Path | str) -> list[str]:
    """One spec per line; blank lines and ``#`` comments (whole-line or trailing) are skipped."""
    p = Path(path)
    try:
        text = textfile.read_text(p)
    except FileNotFoundError:
        raise CompevalError(f"--models-file {p}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CompevalError(f"--models-file {p}: cannot read it ({exc})") from None
    specs = []
    for line in text.splitlines():
        spec = line.split("#", 1)[0].strip()
        if spec:
            specs.append(spec)
    if not specs:
        raise CompevalError(f"--models-file {p}: no model specs in it (one per line, '#' for comments)")
    return specs


def _number(key: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise SpecError(f"mteb:{key}={value}: not a number") from None


def _bool(key: str, value: str) -> bool:
    low = value.strip().lower()
    if low in ("true", "1", "yes"):
        return True
    if low in ("false", "0", "no"):
        return False
    raise SpecError(f"mteb:{key}={value}: choose true or false")


def parse_query(query: str) -> dict[str, str]:
    """``lang=eng,max_params=8e9`` → {key: value}; unknown keys are an error naming the known ones."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in query.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not value.strip():
            raise SpecError(f"mteb:{query}: {part!r} is not key=value (keys: {', '.join(QUERY_KEYS)})")
        if key not in QUERY_KEYS:
            raise SpecError(f"mteb:{query}: unknown key {key!r}; choose from {', '.join(QUERY_KEYS)}")
        out[key] = value.strip()
    return out


@lru_cache(maxsize=1)
def _registry() -> tuple[Any, ...]:
    try:
        import mteb
    except ImportError:
        raise CompevalError("mteb: queries need mteb (pip install 'compeval[mteb]')") from None
    return tuple(mteb.get_model_metas())


def select_mteb(query: str) -> list[Any]:
    """The ``ModelMeta``s of mteb's registry that a query selects, in registry order."""
    q = parse_query(query)
    langs = q["lang"].split("|") if "lang" in q else None
    lo = _number("min_params", q["min_params"]) if "min_params" in q else None
    hi = _number("max_params", q["max_params"]) if "max_params" in q else None
    open_w = _bool("open_weights", q["open_weights"]) if "open_weights" in q else None
    name_re = re.compile(q["name"]) if "name" in q else None
    out = []
    for m in _registry():
        if langs is not None and not any(str(lang).split("-")[0] in langs for lang in (m.languages or [])):
            continue
        if (lo is not None or hi is not None) and m.n_parameters is None:
            continue
        if lo is not None and m.n_parameters < lo or hi is not None and m.n_parameters > hi:
            continue
        if open_w is not None and bool(m.open_weights) != open_w:
            continue
        if q.get("type", "dense") not in (m.model_type or []):
            continue
        if "framework" in q and q["framework"] not in (m.framework or []):
            continue
        if "released_after" in q and not (m.release_date and str(m.release_date) >= q["released_after"]):
            continue
        if name_re is not None and not name_re.search(m.name):
            continue
        out.append(m)
    if "limit" in q:
        out = out[: int(_number("limit", q["limit"]))]
    return out


def meta_spec(meta: Any) -> str:
    """The compeval spec of an mteb model: its Hub name, pinned to mteb's revision when it is a commit."""
    rev = meta.revision
    return f"{meta.name},revision={rev}" if rev and re.fullmatch(r"[0-9a-f]{40}", rev) else meta.name


def expand_models(items: Iterable[str]) -> list[str]:
    """Model arguments → spec strings: ``mteb:QUERY`` (a query, told apart from ``mteb:ORG/NAME`` by its
    ``=``) and ``compeval:LIST`` expand; anything else is a spec as it is. Repeats are kept once."""
    out: list[str] = []
    for item in items:
        if item.startswith("mteb:") and "=" in item.split(",", 1)[0]:
            found = select_mteb(item[len("mteb:"):])
            if not found:
                raise SpecError(f"{item}: selects no model of mteb's registry")
            out += [meta_spec(m) for m in found]
        elif item.startswith("compeval:"):
            name = item[len("compeval:"):]
            if name not in PINNED:
                raise SpecError(f"{item}: no such list; compeval ships {', '.join('compeval:' + k for k in PINNED)}")
            out += read_models_file(PINNED[name])
        else:
            out.append(item)
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class ModelFacts:
    """What the leaderboard shows beside a model, from mteb's registry (None where unknown)."""

    name: str
    n_parameters: int | None = None
    release_date: str | None = None
    license: str | None = None
    revision: str | None = None
    mteb_name: str | None = None  # the registry entry the facts came from


def _registry_names() -> dict[str, Any]:
    return {m.name: m for m in _registry()}


def model_metadata(name: str) -> ModelFacts:
    """Facts about a model named ``ORG/NAME`` (or the packaged ``all-MiniLM-L6-v2``) from mteb's registry;
    a model mteb does not know gets empty facts (never a guess)."""
    try:
        known = _registry_names()
    except CompevalError:
        return ModelFacts(name)
    key = name if name in known else f"sentence-transformers/{name}" if f"sentence-transformers/{name}" in known \
        else None
    if key is None:
        return ModelFacts(name)
    m = known[key]
    return ModelFacts(name, m.n_parameters, str(m.release_date) if m.release_date else None, m.license,
                      m.revision, key)
