"""Spec strings ``NAME[:ARG][,KEY=VALUE…]`` (``hf:all-MiniLM-L6-v2,layer=0,pool=cls``, ``sts3k,missing=drop``):
one grammar for models and tasks, so the CLI has one way to pass options."""
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
        return s + "".join(f",{k}={quote_value(v)}" for k, v in sorted(self.options.items()))


def quote_value(value: str) -> str:
    """A value as written in a spec, double-quoted with escapes when it holds a comma, quote, backslash,
    newline, tab or edge space, so that ``parse_spec(str(spec)) == spec``."""
    value = str(value)
    if any(ch in value for ch in ',"\\\n\t') or value != value.strip():
        body = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        return '"' + body + '"'
    return value


def _split_options(text: str) -> list[str]:
    """Split at commas outside double quotes; quotes and escapes are kept for ``_unquote``."""
    parts, buf, quoted, escaped = [], [], False, False
    for ch in text:
        if escaped:
            buf.append(ch)
            escaped = False
        elif ch == "\\" and quoted:
            buf.append(ch)
            escaped = True
        elif ch == '"':
            buf.append(ch)
            quoted = not quoted
        elif ch == "," and not quoted:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    if quoted:
        raise SpecError(f"spec {text!r}: a double quote is not closed")
    parts.append("".join(buf))
    return parts


_ESCAPES = {"n": "\n", "t": "\t"}


def _unquote(raw: str, text: str) -> str:
    """``"…"`` → its content (``\\n`` newline, ``\\t`` tab, ``\\x`` → ``x``); an unquoted value is stripped."""
    value = raw.strip()
    if not value.startswith('"'):
        if '"' in value:
            raise SpecError(f"spec {text!r}: quote a whole value, e.g. prompt=\"query: \"")
        return value
    out, i = [], 1
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            out.append(_ESCAPES.get(value[i + 1], value[i + 1]))
            i += 2
            continue
        if ch == '"':
            if i != len(value) - 1:
                raise SpecError(f"spec {text!r}: text after the closing quote in {value!r}")
            return "".join(out)
        out.append(ch)
        i += 1
    raise SpecError(f"spec {text!r}: a double quote is not closed")


def parse_spec(text: str) -> Spec:
    """Parse ``NAME[:ARG][,KEY=VALUE…]``; a value in double quotes keeps commas and surrounding spaces
    (``prompt="Given a claim, find: "``). Raises SpecError with the offending part."""
    if text is None or not text.strip():
        raise SpecError("empty spec: give a name such as 'glove-6b-50d' or 'sts3k'")
    text = text.strip()
    head, *opts = _split_options(text)
    name, sep, arg = head.partition(":")
    name = name.strip()
    if not name:
        raise SpecError(f"spec {text!r} has no name before ':'")
    options: dict[str, str] = {}
    for part in opts:
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise SpecError(f"spec {text!r}: option {part!r} is not KEY=VALUE")
        if key.strip() in options:
            raise SpecError(f"spec {text!r}: option {key.strip()!r} is given twice; give it once")
        options[key.strip()] = _unquote(value, text)
    return Spec(name=name, arg=(arg.strip() if sep else None), options=options)

