"""Options declared once, as a pydantic model (tasks, model families, trainers): parsing, one-line errors,
recorded ``params``, slugs, spec strings and listings all follow from it. ``setting(…)`` fields are run settings,
never in an id. A field typed as a pydantic model is a settings group: flat options ``<prefix><field>``.
"""
from __future__ import annotations

import ast
import functools
import inspect
import io
import re
import textwrap
import tokenize
import types
import typing
from typing import Any, Callable, ClassVar, Literal, Mapping

import annotated_types as at
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo

from .context import DEVICE_CHOICES, DEVICE_PATTERN, MAX_SEED
from .errors import SpecError

__all__ = ["MAX_COUNT", "OptionsBase", "device_setting", "is_run_setting", "setting"]

#: Upper bound of an integer option that declares none (``Field(le=…)``): past it memory or time runs away on a
#: workstation. Seeds get ``MAX_SEED`` (what numpy takes); subclasses add their own (``implicit_cap``).
MAX_COUNT = 1_000_000


def setting(default: Any = None, *, form: str | None = None, **kwargs: Any) -> Any:
    """A run setting's ``Field``: how a run goes (device, batch size, rate limits), recorded beside a result
    and never part of an id. ``form`` is what a value looks like, for messages (else the pattern)."""
    return Field(default, json_schema_extra={"run_setting": True, **({"form": form} if form else {})}, **kwargs)


def device_setting(description: str = "auto|cpu|cuda|cuda:N|mps (auto: cuda, then mps, then cpu)") -> Any:
    """The device field of every option set that has one: the pattern of ``compeval.context``."""
    return setting("auto", pattern=f"^(?:{DEVICE_PATTERN})$", form=DEVICE_CHOICES, description=description)


def is_run_setting(field: FieldInfo) -> bool:
    extra = field.json_schema_extra
    return isinstance(extra, dict) and bool(extra.get("run_setting"))


class OptionsBase(BaseModel):
    """Base of every option set: frozen, no unknown names, finite numbers. Subclasses add fields; field order
    is the order recorded and listed. Build from user input with ``parse`` (one-line ``SpecError``s); built
    directly, a bad value is pydantic's ``ValidationError`` naming the field."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, validate_default=False,
                              validate_by_name=True, validate_by_alias=True)

    #: Settings group → the prefix of its fields' option names, where it is not the group's name + '_'.
    group_prefix: ClassVar[dict[str, str]] = {}
    #: Option names refused with their own line (what to give instead) rather than "unknown option".
    refused: ClassVar[dict[str, str]] = {}

    # --- declarations ----------------------------------------------------------------------------------

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
    def aliases(cls) -> dict[str, str]:
        """Older option names → the option they mean (``batch_size`` → ``batch``)."""
        out = {}
        for name, f in cls.model_fields.items():
            if isinstance(f.validation_alias, AliasChoices):
                out.update({a: name for a in f.validation_alias.choices if isinstance(a, str) and a != name})
        return out

    @classmethod
    def implicit_cap(cls, name: str, field: FieldInfo) -> int | None:
        """The upper bound an integer option gets when it declares none (see ``MAX_COUNT``)."""
        if _base_type(field) is not int or any(isinstance(m, (at.Le, at.Lt, at.Interval)) for m in field.metadata):
            return None
        return MAX_SEED if name.endswith("seed") else MAX_COUNT

    # --- building --------------------------------------------------------------------------------------

    @classmethod
    def parse(cls, values: Mapping[str, Any], where: str) -> "OptionsBase":
        """Validate keyword values (Python objects or the CLI's strings; a group's fields by their option
        names or as the group). A SpecError names ``where`` (``task 'x'``, a model spec), the option, the
        value and what is allowed, in one line."""
        aliases, seen, fields = cls.aliases(), {}, cls.flat_fields()
        for key, value in values.items():
            name = aliases.get(key, key)
            if name in seen:
                raise SpecError(f"{where}: option {name} given twice (as {seen[name]} and {key})")
            seen[name] = key
            # pydantic would read true as 1: a boolean (a TOML file's, the Python API's) is no count
            if isinstance(value, bool) and name in fields and _base_type(fields[name][1]) in (int, float):
                raise SpecError(f"{where}: option {key}={_show(value)}: expected {_allowed(fields[name][1])}, not "
                                "true or false")
        try:
            options = cls.model_validate(cls._nest(values))
        except ValidationError as exc:
            raise SpecError(_message(cls, where, exc.errors(include_url=False))) from None
        for name, (path, field, _) in cls.flat_fields().items():  # settings groups' fields too
            value = getattr(getattr(options, path[0]), path[1]) if len(path) == 2 else getattr(options, name)
            cap = cls.implicit_cap(name, field)
            if cap is not None and isinstance(value, int) and value > cap:
                raise SpecError(f"{where}: option {name}={value!r} must be at most {cap:,} (a bound that "
                                "keeps memory and time sane; see compeval.options)")
        return options

    @classmethod
    def _nest(cls, values: Mapping[str, Any]) -> dict[str, Any]:
        """Flat option names onto their places; a settings group set in part keeps this class's default
        for the rest of its fields (a probe's ``mlp_tol=…`` leaves its ``max_iter`` at the probe's 700,
        not at the trainer's own 200)."""
        flat, groups, out = cls.flat_fields(), cls.groups(), {}
        for key, value in values.items():
            path = flat[key][0] if key in flat else (key,)
            group = path[0] if path[0] in groups else None
            if group is not None and group not in out:
                out[group] = _plain(cls.model_fields[group].get_default(call_default_factory=True))
            if len(path) == 1:
                out[key] = {**out[key], **_plain(value)} if group is not None and isinstance(
                    _plain(value), dict) else value
            else:
                out[group] = {**out[group], path[1]: value}
        return out

    # --- what is recorded ------------------------------------------------------------------------------

    def params(self) -> dict[str, Any]:
        """Every option with its value, settings groups as dicts: what results record."""
        return {k: _plain(getattr(self, k)) for k in type(self).model_fields}

    @classmethod
    def default_params(cls) -> dict[str, Any]:
        return {k: _plain(f.get_default(call_default_factory=True)) for k, f in cls.model_fields.items()}

    def run_settings(self) -> dict[str, Any]:
        """The run settings (``setting(…)`` fields) with their values: recorded, never in an id."""
        return {k: getattr(self, k) for k, f in type(self).model_fields.items() if is_run_setting(f)}

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
        return "".join(f",{k}={_show(v)}" for k, v in self.non_default().items())

    # --- listings --------------------------------------------------------------------------------------

    @classmethod
    def describe(cls) -> dict[str, str]:
        """Option → 'default; allowed' text, for help screens and error messages."""
        return {k: f"{d!r}; {_allowed(f)}" for k, (_, f, d) in cls.flat_fields().items()}

    @classmethod
    def spec_form(cls) -> str:
        """The options as a spec form shows them: ``[,pool=mean|cls|last][,batch=32]``."""
        return "".join(f"[,{k}={_form_value(k, f, d)}]" for k, (_, f, d) in cls.flat_fields().items())

    @classmethod
    def rows(cls) -> list[dict[str, str]]:
        """One row per option (``compeval models FAMILY``, ``compeval tasks NAME``): name and older names,
        default, values (type and range), kind, help (the field's ``description``, else ``field_notes``)."""
        aliases = cls.aliases()
        rows = []
        for k, (path, f, d) in cls.flat_fields().items():
            owner = type(cls.model_fields[path[0]].get_default(call_default_factory=True)) if len(path) > 1 else cls
            rows.append({"option": k + "".join(f" (or {a})" for a, n in aliases.items() if n == k),
                         "default": "" if d is None else _show(d), "values": _values(f),
                         "kind": "run setting" if is_run_setting(f) else "identity",
                         "help": plain(f.description or field_notes(owner).get(path[-1], ""))})
        return rows


_REST_LITERAL = re.compile(r"(?::[a-z]+:)?``?([^`]+)``?")


def plain(text: str) -> str:
    """Help as plain text: the reStructuredText literals and roles of the comments and descriptions it is read
    from (````_norml````, ``:class:`X```) shown as their bare text, as a terminal and JSON should."""
    return _REST_LITERAL.sub(r"\1", text)


@functools.cache
def field_notes(cls: type) -> dict[str, str]:
    """Field → the comment beside it (else right above it) in the class that declares it, along the MRO, so that
    each option's help is written once, where it is declared (pydantic reads field docstrings, not comments)."""
    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not (isinstance(klass, type) and issubclass(klass, BaseModel)) or klass is BaseModel:
            continue
        try:
            lines, _ = inspect.getsourcelines(klass)
        except (OSError, TypeError):  # defined in a string or the REPL: nothing to read
            continue
        source = textwrap.dedent("".join(lines))
        comments = {}
        try:
            for tok in tokenize.generate_tokens(io.StringIO(source).readline):
                if tok.type == tokenize.COMMENT:
                    text = re.sub(r"(type:\s*ignore\S*|noqa\S*)", "", tok.string).strip("# ").strip()
                    comments[tok.start[0]] = (text, source.splitlines()[tok.start[0] - 1].lstrip().startswith("#"))
            node = ast.parse(source).body[0]
        except (SyntaxError, tokenize.TokenError, IndexError):
            continue
        for st in getattr(node, "body", []):
            if not (isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
                continue
            beside = [comments[n][0] for n in range(st.lineno, st.end_lineno + 1) if n in comments]
            above, n = [], st.lineno - 1
            while n in comments and comments[n][1]:
                above.insert(0, comments[n][0])
                n -= 1
            text = " ".join(t for t in (beside or above) if t)
            if text:
                out[st.target.id] = text
    return out


# --- values and types ----------------------------------------------------------------------------------

def _plain(value: Any) -> Any:
    return value.model_dump() if isinstance(value, BaseModel) else value


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _base_type(field: FieldInfo) -> Any:
    """The annotation without ``| None``."""
    ann = field.annotation
    if typing.get_origin(ann) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return ann


def _choices(field: FieldInfo) -> tuple[Any, ...] | None:
    ann = _base_type(field)
    return typing.get_args(ann) if typing.get_origin(ann) is Literal else None


def _pattern_form(field: FieldInfo) -> str | None:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    for m in field.metadata:
        pattern = getattr(m, "pattern", None)
        if pattern is not None:
            return str(extra.get("form") or pattern.removeprefix("^").removesuffix("$"))
    return None


def _bounds(field: FieldInfo) -> list[str]:
    out = []
    for m in field.metadata:
        for attr, word in (("ge", "at least"), ("gt", "greater than"), ("le", "at most"), ("lt", "less than")):
            v = getattr(m, attr, None) if isinstance(m, (at.Ge, at.Gt, at.Le, at.Lt, at.Interval)) else None
            if v is not None:
                out.append(f"{word} {v}")
    return out


_KINDS = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}


def _allowed(field: FieldInfo) -> str:
    choices = _choices(field)
    if choices is not None:
        return "one of " + ", ".join(map(str, choices))
    form = _pattern_form(field)
    if form is not None:
        return f"text like {form}"
    ann = _base_type(field)
    bounds = _bounds(field)
    return _KINDS.get(ann, str(ann)) + (", " + " and ".join(bounds) if bounds else "")


def _values(field: FieldInfo) -> str:
    """The values column of ``rows``."""
    choices = _choices(field)
    if choices is not None:
        return "|".join(map(str, choices))
    ann = _base_type(field)
    out = _pattern_form(field) or {int: "integer", float: "number", bool: "true|false"}.get(ann, "text")
    for m in field.metadata:
        for attr, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            v = getattr(m, attr, None) if isinstance(m, (at.Ge, at.Gt, at.Le, at.Lt, at.Interval)) else None
            if v is not None:
                out += f" {sign} {_show(v)}"
    return out


def _form_value(name: str, field: FieldInfo, default: Any) -> str:
    choices = _choices(field)
    if choices:
        first = [default] if default in choices else []
        return "|".join(str(c) for c in first + [c for c in choices if c != default])
    if default in (None, ""):
        kind = _base_type(field)
        return {int: "N", float: "X", bool: "true|false"}.get(kind, "TEXT" if default == "" else name.upper())
    return _show(default)


# --- messages -------------------------------------------------------------------------------------------

def _message(cls: type[OptionsBase], head: str, errors: list[Mapping[str, Any]]) -> str:
    extras = [e for e in errors if e["type"] == "extra_forbidden"]
    err = extras[0] if extras else errors[0]
    loc = tuple(str(p) for p in err.get("loc", ()))
    groups = cls.groups()
    name = groups[loc[0]] + loc[1] if len(loc) > 1 and loc[0] in groups else (loc[0] if loc else "")
    flat = cls.flat_fields()
    if err["type"] == "extra_forbidden":
        unknown = [str(e["loc"][-1]) for e in extras]
        if unknown[0] in cls.refused:
            return f"{head}: option {unknown[0]}: {cls.refused[unknown[0]]}"
        names = ", ".join(flat) or "none"
        what = f"option {unknown[0]!r}" if len(unknown) == 1 else "options " + ", ".join(map(repr, unknown))
        return f"{head}: unknown {what}; options: {names}"
    field = flat[name][1] if name in flat else None
    if err["type"] == "value_error":  # a domain check: its own message says what is wrong
        reason = str(err.get("ctx", {}).get("error", err["msg"]))
        return f"{head}: option {name}={err.get('input')!r}: {reason}" if field else f"{head}: {reason}"
    if field is None:
        return f"{head}: {err['msg']}"
    if err["type"] == "string_pattern_mismatch":
        return f"{head}: option {name}={err.get('input')!r} must look like {_pattern_form(field)}"
    return f"{head}: option {name}={err.get('input')!r} must be {_allowed(field)}"


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
