"""Model spec options, declared once per family in ``register_model(options=…)``.

From the declarations come the parsing and typing of ``,key=value`` options, every validation message,
the option list in ``compeval models``, and which values are identity (they change the vectors, so
they enter the model's id) and which are run settings (device, batch size: recorded beside the result,
never in the id). Every family accepts the ``COMMON`` options; torch-backed families (``torch=True``)
also accept ``TORCH_OPTIONS``. A family may redeclare a common option to change its default.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from ..context import MAX_SEED
from ..errors import SpecError

#: Bounds of integer options that declare no ``max`` (see ``Opt.upper``), and of vector sizes.
MAX_COUNT = 1_000_000
MAX_DIM = 65_536  # 65,536 float32 dimensions × 10,000 texts is 2.6 GB already

_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Opt:
    """One spec option: its type, default, allowed values, and whether it is part of the identity."""

    name: str
    default: Any = None
    kind: type = str  # str | int | float | bool
    choices: tuple | Callable[[], tuple] | None = None  # a callable for lists that other modules extend
    min: float | None = None
    max: float | None = None
    pattern: str | None = None  # a regular expression the whole (string) value must match
    identity: bool = True  # False: a run setting (recorded, not part of the model's id)
    help: str = ""
    aliases: tuple[str, ...] = ()  # older names still accepted

    def allowed(self) -> tuple | None:
        return self.choices() if callable(self.choices) else self.choices

    def form(self) -> str:
        """How ``compeval models`` shows the option: ``[,pool=mean|cls|last]``, ``[,batch=32]``."""
        choices = self.allowed()
        if choices:
            first = [self.default] if self.default in choices else []
            value = "|".join(str(c) for c in first + [c for c in choices if c != self.default])
        elif self.default in (None, ""):
            value = {int: "N", float: "X", bool: "true|false"}.get(self.kind, "TEXT" if self.default == "" else
                                                                   self.name.upper())
        else:
            value = _show(self.default)
        return f"[,{self.name}={value}]"

    def convert(self, raw: str, spec: str) -> Any:
        """The typed value of ``raw``, or a SpecError naming the spec, the option and what it accepts."""
        where = f"{spec}: option {self.name}={raw!r}"
        if self.kind is bool:
            low = raw.strip().lower()
            if low not in _TRUE | _FALSE:
                raise SpecError(f"{where} must be true or false")
            value: Any = low in _TRUE
        else:
            try:
                value = self.kind(raw)
            except ValueError:
                raise SpecError(f"{where} must be {'an integer' if self.kind is int else 'a number'}") from None
        if self.kind is float and not math.isfinite(value):  # nan passes every comparison: say the range
            span = (f"between {_show(self.min)} and {_show(self.max)}" if self.min is not None and self.max is not None
                    else f"at least {_show(self.min)}" if self.min is not None
                    else f"at most {_show(self.max)}" if self.max is not None else "a finite number")
            raise SpecError(f"{where} must be {span}")
        choices = self.allowed()
        if choices is not None and value not in choices:
            raise SpecError(f"{where} must be one of {', '.join(map(str, choices))}")
        if self.pattern is not None and not re.fullmatch(self.pattern, str(value)):
            raise SpecError(f"{where} must look like {self.help or self.pattern}")
        if self.min is not None and value < self.min:
            raise SpecError(f"{where} must be at least {_show(self.min)}")
        upper = self.upper()
        if upper is not None and value > upper:
            raise SpecError(f"{where} must be at most {_show(upper)}")
        return value

    def upper(self) -> float | None:
        """``max``, else for an integer the bound that keeps memory and time sane: a seed as numpy takes it
        (2³²−1), any other count 1,000,000 (vector sizes declare their own, ``MAX_DIM``)."""
        if self.max is not None or self.kind is not int:
            return self.max
        return MAX_SEED if self.name.endswith("seed") else MAX_COUNT


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


class OptionValues(dict):
    """Typed option values (declared defaults filled in); ``given`` holds the names the spec set."""

    def __init__(self, values: Mapping[str, Any], given: Iterable[str], declared: Mapping[str, Opt]):
        super().__init__(values)
        self.given = frozenset(given)
        self.declared = dict(declared)

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def changed(self, *names: str) -> tuple[str, ...]:
        """Those of ``names`` (all options if none) whose value differs from the declared default."""
        names = names or tuple(self.declared)
        return tuple(n for n in names if n in self and self[n] != self.declared[n].default)

    def settings(self) -> dict[str, Any]:
        """The run settings (not identity), for ``ModelConfig.settings``."""
        return {n: self[n] for n, o in self.declared.items() if not o.identity and n in self}


# --- options every family accepts -------------------------------------------------------------------

COMMON: tuple[Opt, ...] = (
    Opt("name", None, help="the model's name in results (default: the package, repo id or folder name)"),
)

DTYPES = ("float32", "float16", "bfloat16")
DEVICE_PATTERN = r"auto|cpu|mps|cuda(:\d+)?"

TORCH_OPTIONS: tuple[Opt, ...] = (
    Opt("device", "auto", pattern=DEVICE_PATTERN, identity=False,
        help="auto|cpu|cuda|cuda:N|mps (auto: cuda, then mps, then cpu)"),
    Opt("dtype", "float32", choices=DTYPES, help="weights and activations precision"),
    Opt("batch", 32, int, min=1, identity=False, help="texts per forward pass", aliases=("batch_size",)),
    Opt("max_length", None, int, min=1, help="truncate inputs to N tokens (default: the model's own limit)"),
)


def declared_options(own: Iterable[Opt], torch: bool = False) -> dict[str, Opt]:
    """Common options, then the torch ones, then the family's own (which override by name)."""
    out: dict[str, Opt] = {o.name: o for o in COMMON}
    if torch:
        out.update({o.name: o for o in TORCH_OPTIONS})
    out.update({o.name: o for o in own})
    return out


def parse_options(declared: Mapping[str, Opt], raw: Mapping[str, str], spec: str) -> OptionValues:
    """Typed values for every declared option; unknown options are one SpecError listing the allowed ones."""
    by_name = {a: o for o in declared.values() for a in (o.name, *o.aliases)}
    unknown = sorted(k for k in raw if k not in by_name)
    if unknown:
        raise SpecError(f"{spec}: unknown option(s) {', '.join(unknown)}; allowed: {', '.join(declared) or 'none'}")
    values = {n: o.default for n, o in declared.items()}
    given = []
    for key, text in raw.items():
        opt = by_name[key]
        if opt.name in given:
            raise SpecError(f"{spec}: option {opt.name} given twice (as {key} too)")
        values[opt.name] = opt.convert(text, spec)
        given.append(opt.name)
    return OptionValues(values, given, declared)


def options_form(declared: Mapping[str, Opt]) -> str:
    return "".join(o.form() for o in declared.values())


def option_rows(declared: Mapping[str, Opt]) -> list[dict[str, str]]:
    """One row per option for ``compeval models FAMILY``."""
    rows = []
    for o in declared.values():
        choices = o.allowed()
        kind = "|".join(map(str, choices)) if choices else {int: "integer", float: "number", bool: "true|false"}.get(
            o.kind, "text")
        if o.min is not None:
            kind += f" >= {_show(o.min)}"
        if o.max is not None:
            kind += f" <= {_show(o.max)}"
        rows.append({"option": o.name + "".join(f" (or {a})" for a in o.aliases),
                     "default": "" if o.default is None else _show(o.default), "values": kind,
                     "kind": "identity" if o.identity else "run setting", "help": o.help})
    return rows
