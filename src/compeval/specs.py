"""Spec strings name a model or a task with its options: ``NAME[:ARG][,KEY=VALUE…]``.

Examples: ``glove-6b-50d``, ``static:/data/vectors.txt,op=conv,tok=sts3k``,
``hf:all-MiniLM-L6-v2,layer=0,pool=cls``, ``sts3k,missing=drop``.
The same grammar serves models and tasks so that the CLI has one way to pass options.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import SpecError


@dataclass(frozen=True)
class Spec:
    name: str
    arg: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        s = self.name + (f":{self.arg}" if self.arg is not None else "")
        return s + "".join(f",{k}={v}" for k, v in sorted(self.options.items()))


def parse_spec(text: str) -> Spec:
    """Parse ``NAME[:ARG][,KEY=VALUE…]``. Raises SpecError with the offending part."""
    if text is None or not text.strip():
        raise SpecError("empty spec: give a name such as 'glove-6b-50d' or 'sts3k'")
    text = text.strip()
    head, *opts = text.split(",")
    name, sep, arg = head.partition(":")
    name = name.strip()
    if not name:
        raise SpecError(f"spec {text!r} has no name before ':'")
    options: dict[str, str] = {}
    for part in opts:
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise SpecError(f"spec {text!r}: option {part!r} is not KEY=VALUE")
        options[key.strip()] = value.strip()
    return Spec(name=name, arg=(arg.strip() if sep else None), options=options)


def pop_option(options: dict[str, str], key: str, default, kind=str, choices=None, spec: str = "",
               low=None, high=None):
    """Take one option out of ``options``, converted to ``kind`` and checked against ``choices`` or the
    inclusive range ``low``..``high``; unknown leftovers are an error later."""
    if key not in options:
        return default
    raw = options.pop(key)
    try:
        value = kind(raw) if kind is not bool else raw.lower() in {"1", "true", "yes", "on"}
    except ValueError:
        raise SpecError(f"{spec}: option {key}={raw!r} must be {kind.__name__}") from None
    if choices is not None and value not in choices:
        raise SpecError(f"{spec}: option {key}={raw!r} must be one of {', '.join(map(str, choices))}")
    if kind in (int, float) and (value != value or value in (float("inf"), float("-inf")) or (low is not None and value < low)
                                 or (high is not None and value > high)):
        span = (f"between {low} and {high}" if low is not None and high is not None
                else f"at least {low}" if low is not None else f"at most {high}" if high is not None else "a finite number")
        raise SpecError(f"{spec}: option {key}={raw!r} must be {span}")
    return value


def reject_unknown(options: dict[str, str], spec: str, allowed: list[str]) -> None:
    if options:
        raise SpecError(
            f"{spec}: unknown option(s) {', '.join(sorted(options))}; allowed: {', '.join(allowed) or 'none'}"
        )
