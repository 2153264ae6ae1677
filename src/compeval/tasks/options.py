"""Task options declared once, as a pydantic model per task.

A task's ``Options`` class gives each option its type, default, range (``Field(ge=…)``) or choices
(``Literal``). Everything else follows from it: converting the CLI's strings (``--task NAME,key=value``),
the one-line error for a bad value, the recorded ``params``, the result-file slug (the options that
differ from their defaults) and the spec string a remote worker rebuilds the task from.

A field typed as a pydantic model is a settings group owned elsewhere (a trainer's ``AdamSettings``):
its fields are options named ``<prefix><field>`` on the command line (``mlp_max_iter`` for
``mlp.max_iter``; the prefix is the group's name and ``_`` unless ``group_prefix`` says otherwise), in
the slug and in the spec string, and recorded once, nested, in ``params``.
"""
from __future__ import annotations

import os
import typing
from typing import Any, Callable, ClassVar, Literal, Mapping

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

    #: Settings group → the prefix of its fields' option names, where it is not the group's name + '_'.
    group_prefix: ClassVar[dict[str, str]] = {}

    @classmethod
    def groups(cls) -> dict[str, str]:
        """Settings groups (fields typed as a pydantic model) → the prefix of their option names."""
        return {k: cls.group_prefix.get(k, k + "_") for k, f in cls.model_fields.items()
                if isinstance(f.annotation, type) and issubclass(f.annotation, BaseModel)}

    @classmethod
    def flat_fields(cls) -> dict[str, tuple[tuple[str, ...], FieldInfo, Any]]:
        """Option name → (path in the model, field, default), settings groups flattened."""
        groups, out = cls.groups(), {}
        for name, f in cls.model_fields.items():
            if name in groups:
                default = f.get_default(call_default_factory=True)
                for inner, g in type(default).model_fields.items():
                    out[groups[name] + inner] = ((name, inner), g, getattr(default, inner))
            else:
                out[name] = ((name,), f, f.get_default(call_default_factory=True))
        return out

    @classmethod
    def build(cls, task: str, values: Mapping[str, Any]) -> "TaskOptions":
        """Validate keyword values (Python objects or the CLI's strings; a group's fields by their option
        names or as the group); SpecError names task, option, value and what is allowed, in one line."""
        try:
            options = cls.model_validate(cls._nest(values))
        except ValidationError as exc:
            raise SpecError(_message(cls, task, exc.errors(include_url=False)[0])) from None
        for name, (path, field, _) in cls.flat_fields().items():  # settings groups' fields too
            value = getattr(getattr(options, path[0]), path[1]) if len(path) == 2 else getattr(options, name)
            cap = implicit_cap(name, field)
            if cap is not None and isinstance(value, int) and value > cap:
                raise SpecError(f"task {task!r}: option {name}={value!r} must be at most {cap:,} (a bound that "
                                "keeps memory and time sane; see compeval.tasks.options)")
        return options

    @classmethod
    def _nest(cls, values: Mapping[str, Any]) -> dict[str, Any]:
        flat, out = cls.flat_fields(), {}
        for key, value in values.items():
            path = flat[key][0] if key in flat else (key,)
            if len(path) == 1:
                out[key] = value if not isinstance(out.get(key), dict) else {**_plain(value), **out[key]}
            else:
                group = out.get(path[0], {})
                out[path[0]] = {**_plain(group), path[1]: value}
        return out

    def params(self) -> dict[str, Any]:
        """Every option with its value, settings groups as dicts: what results record."""
        return {k: _plain(getattr(self, k)) for k in type(self).model_fields}

    @classmethod
    def default_params(cls) -> dict[str, Any]:
        return {k: _plain(f.get_default(call_default_factory=True)) for k, f in cls.model_fields.items()}

    def non_default(self) -> dict[str, Any]:
        """The options set away from their defaults, by option name, sorted (slug and spec string)."""
        out = {}
        for key, (path, _, default) in sorted(self.flat_fields().items()):
            value = self
            for part in path:
                value = getattr(value, part)
            if value != default:
                out[key] = value
        return out

    def slug_suffix(self) -> str:
        return "".join(f"__{k}-{v}" for k, v in self.non_default().items())

    def spec_suffix(self) -> str:
        return "".join(f",{k}={_spec_value(v)}" for k, v in self.non_default().items())

    @classmethod
    def describe(cls) -> dict[str, str]:
        """Option → 'default; allowed' text, for help screens and error messages."""
        return {k: f"{d!r}; {_allowed(f)}" for k, (_, f, d) in cls.flat_fields().items()}


def _plain(value: Any) -> Any:
    return value.model_dump() if isinstance(value, BaseModel) else value


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
    loc = tuple(str(p) for p in err.get("loc", ()))
    groups = cls.groups()
    name = groups[loc[0]] + loc[1] if len(loc) > 1 and loc[0] in groups else (loc[0] if loc else "")
    head = f"task {task!r}"
    flat = cls.flat_fields()
    if err["type"] == "extra_forbidden":
        names = ", ".join(flat) or "none"
        return f"{head}: unknown option {name!r}; options: {names}"
    field = flat[name][1] if name in flat else None
    if err["type"] == "value_error":  # a domain check: its own message says what is wrong
        reason = str(err.get("ctx", {}).get("error", err["msg"]))
        return f"{head}: option {name}={err.get('input')!r}: {reason}" if field else f"{head}: {reason}"
    if field is None:
        return f"{head}: {err['msg']}"
    return f"{head}: option {name}={err.get('input')!r} must be {_allowed(field)}"
