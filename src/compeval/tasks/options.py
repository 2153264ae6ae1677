"""Task options declared once, as a pydantic model per task.

A task's ``Options`` class gives each option its type, default, range (``Field(ge=…)``) or choices
(``Literal``). Everything else follows from it: converting the CLI's strings (``--task NAME,key=value``),
the one-line error for a bad value, the recorded ``params``, the result-file slug (the options that
differ from their defaults) and the spec string a remote worker rebuilds the task from.
"""
from __future__ import annotations

import os
import typing
from typing import Any, Callable, Literal, Mapping

import annotated_types as at
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.fields import FieldInfo

from ..context import MAX_SEED
from ..errors import SpecError
from ..metrics import DEFAULT_RESAMPLES, MAX_RESAMPLES

__all__ = ["BOOTSTRAP", "TaskOptions", "domain_check", "path_text"]

#: Bootstrap resamples behind every 95% interval (the paper setting in every suite).
BOOTSTRAP = DEFAULT_RESAMPLES

#: Upper bounds of integer options that declare none (``Field(le=…)`` overrides them), checked when the
#: task is built, i.e. at planning, before any work: seeds as numpy takes them; resample counts as the
#: report's ``--resamples`` (100,000: seconds per interval on the largest task); any other count (items,
#: epochs, components…) 1,000,000, past which memory or time runs away on a workstation.
MAX_RESAMPLE_OPTION = MAX_RESAMPLES
MAX_COUNT = 1_000_000
RESAMPLE_OPTIONS = ("bootstrap", "n_resamples", "splits", "repeats", "permutations")


def implicit_cap(name: str, field: FieldInfo) -> int | None:
    """The upper bound an integer option gets when it declares none (see ``MAX_COUNT``)."""
    if field.annotation is not int or any(isinstance(m, (at.Le, at.Lt, at.Interval)) for m in field.metadata):
        return None
    if name.endswith("seed"):
        return MAX_SEED
    return MAX_RESAMPLE_OPTION if name in RESAMPLE_OPTIONS else MAX_COUNT


class TaskOptions(BaseModel):
    """Base of every task's ``Options``: no options. Subclasses add fields; field order is the order
    recorded in results."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, validate_default=False)

    @classmethod
    def build(cls, task: str, values: Mapping[str, Any]) -> "TaskOptions":
        """Validate keyword values (Python objects or the CLI's strings); SpecError names task, option, value
        and what is allowed, in one line."""
        try:
            options = cls.model_validate(dict(values))
        except ValidationError as exc:
            raise SpecError(_message(cls, task, exc.errors(include_url=False)[0])) from None
        for name, field in cls.model_fields.items():
            value, cap = getattr(options, name), implicit_cap(name, field)
            if cap is not None and isinstance(value, int) and value > cap:
                raise SpecError(f"task {task!r}: option {name}={value!r} must be at most {cap:,} (a bound that "
                                "keeps memory and time sane; see compeval.tasks.options)")
        return options

    def params(self) -> dict[str, Any]:
        """Every option with its value: what results record."""
        return {k: getattr(self, k) for k in type(self).model_fields}

    def non_default(self) -> dict[str, Any]:
        """The options set away from their defaults, sorted by name (slug and spec string)."""
        fields = type(self).model_fields
        return {k: getattr(self, k) for k in sorted(fields) if getattr(self, k) != fields[k].get_default()}

    def slug_suffix(self) -> str:
        return "".join(f"__{k}-{v}" for k, v in self.non_default().items())

    def spec_suffix(self) -> str:
        return "".join(f",{k}={_spec_value(v)}" for k, v in self.non_default().items())

    @classmethod
    def describe(cls) -> dict[str, str]:
        """Option → 'default; allowed' text, for help screens and error messages."""
        return {k: f"{f.get_default()!r}; {_allowed(f)}" for k, f in cls.model_fields.items()}


def _spec_value(v: Any) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def domain_check(parse: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Wrap a domain parser that raises SpecError (probe words, classifier lists…) for a field validator:
    pydantic reports ValueError with the option's name; the raw value is kept."""

    def check(value: Any) -> Any:
        try:
            parse(value)
        except SpecError as exc:
            raise ValueError(str(exc)) from None
        return value

    return check


def path_text(value: Any) -> Any:
    """Let the Python API pass a ``pathlib.Path`` where an option holds a file name."""
    return os.fspath(value) if isinstance(value, os.PathLike) else value


# --- messages -------------------------------------------------------------------------------------------

def _choices(field: FieldInfo) -> tuple[Any, ...] | None:
    ann = field.annotation
    return typing.get_args(ann) if typing.get_origin(ann) is Literal else None


def _bounds(field: FieldInfo) -> list[str]:
    out = []
    for m in field.metadata:
        for attr, word in (("ge", "at least"), ("gt", "greater than"), ("le", "at most"), ("lt", "less than")):
            v = getattr(m, attr, None) if isinstance(m, (at.Ge, at.Gt, at.Le, at.Lt, at.Interval)) else None
            if v is not None:
                out.append(f"{word} {v}")
    return out


def _allowed(field: FieldInfo) -> str:
    choices = _choices(field)
    if choices is not None:
        return "one of " + ", ".join(map(str, choices))
    ann = field.annotation
    kind = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(ann, str(ann))
    bounds = _bounds(field)
    return kind + (", " + " and ".join(bounds) if bounds else "")


def _message(cls: type[TaskOptions], task: str, err: Mapping[str, Any]) -> str:
    name = str(err["loc"][0]) if err.get("loc") else ""
    head = f"task {task!r}"
    if err["type"] == "extra_forbidden":
        names = ", ".join(cls.model_fields) or "none"
        return f"{head}: unknown option {name!r}; options: {names}"
    field = cls.model_fields.get(name)
    if err["type"] == "value_error":  # a domain check: its own message says what is wrong
        reason = str(err.get("ctx", {}).get("error", err["msg"]))
        return f"{head}: option {name}={err.get('input')!r}: {reason}" if field else f"{head}: {reason}"
    if field is None:
        return f"{head}: {err['msg']}"
    return f"{head}: option {name}={err.get('input')!r} must be {_allowed(field)}"
