"""Model spec options: each family declares ``class Options(ModelOptions)``; ``setting(…)`` fields are run
settings, the others identity, recorded as each field declares (``identity_field``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal, Mapping

from pydantic import AliasChoices, Field

from ..options import OptionsBase, device_setting, is_run_setting, setting

if TYPE_CHECKING:
    from .protocol import ModelConfig

__all__ = ["DTYPES", "MAX_DIM", "KeepsConfig", "ModelOptions", "TorchOptions", "batch_setting", "dtype_field",
           "identity_field"]

#: Bound of vector sizes: 65,536 float32 dimensions × 10,000 texts is 2.6 GB already.
MAX_DIM = 65_536

DTYPES = ("float32", "float16", "bfloat16")


#: How an identity option enters ``ModelConfig.params`` (``record``) and the display name (``show``); both
#: are declared on the field (``identity_field``), next to its default.
#: record: always (a None value left out), changed (left out at its default: dtype=float32), null (recorded
#: even when None, as null: ids written before hold it so).
RECORD = ("always", "changed", "null")
SHOW = ("changed", "always", "never", "recorded")  # recorded: whenever its recorded value is not None or ""


def identity_field(default: Any = None, *, param: str | None = None, record: str = "always",
                   show: str = "changed", **kwargs: Any) -> Any:
    """An identity option's ``Field``: ``param`` is the name the model's params record it by (``pool`` →
    ``pooling``), ``record`` whether it is recorded at its default, ``show`` when it is part of the model's
    display name (``changed``: set away from its default)."""
    if record not in RECORD or show not in SHOW:
        raise ValueError(f"identity_field: record must be one of {RECORD}, show one of {SHOW}")
    extra = {k: v for k, v in (("param", param), ("record", record), ("show", show))
             if v is not None and (k, v) not in (("record", "always"), ("show", "changed"))}
    return Field(default, json_schema_extra=extra or None, **kwargs)


def _extra(field: Any) -> dict[str, Any]:
    return field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}


class ModelOptions(OptionsBase):
    """The options every family accepts; the builder applies them around the family's model."""

    name: str | None = Field(None, description="the model's name in results (default: the package, repo id or "
                                               "folder name)")

    #: The versioned family these options belong to (``hf.v1``), set by ``register_model``.
    family: ClassVar[str | None] = None
    #: Identity options this family never records (folded into another param, or not used by it).
    unrecorded: ClassVar[tuple[str, ...]] = ()

    #: Params shown in the display name in this order first (the others follow in field order): the order
    #: is part of the slug, and so of the id.
    shown_order: ClassVar[tuple[str, ...]] = ()

    def identity(self) -> dict[str, Any]:
        """The options that change what the model computes (all but run settings and ``name``), under their
        ``param=`` names."""
        params = self.params()
        return {param: params[key] for key, param, _ in self._identity_fields()}

    @classmethod
    def _identity_fields(cls) -> list[tuple[str, str, Any]]:
        return [(key, str(_extra(f).get("param", key)), f) for key, f in cls.model_fields.items()
                if key != "name" and not is_run_setting(f)]

    def to_model_config(self, name: str, *, family: str | None = None, resolved: Mapping[str, Any] | None = None,
                        facts: Mapping[str, Any] | None = None, **config: Any) -> "ModelConfig":
        """The model's ``ModelConfig``: each identity option under its param name, at the value it ``resolved``
        to (``layer=-1`` → the last layer), left out as its ``record`` declares; ``facts`` recorded as given."""
        from .protocol import ModelConfig

        family = family or type(self).family  # family=: a config that records another name (precomputed-scores)
        if family is None:
            raise TypeError(f"{type(self).__name__} belongs to no family: register_model(..., options=) sets it")
        resolved = dict(resolved or {})
        values, defaults = self.params(), self.default_params()
        fields = self._identity_fields()
        params: dict[str, Any] = {}
        shown: list[str] = []
        for key, param, f in fields:
            extra = _extra(f)
            changed = values[key] != defaults[key]
            if param in self.unrecorded:
                continue
            if param in resolved:
                value = resolved[param]
            elif extra.get("record") == "changed" and not changed:
                continue
            else:
                value = values[key]
            if (value is None and extra.get("record") != "null") or param in params:
                continue
            params[param] = value
            show = extra.get("show", "changed")
            if show == "always" or (show == "changed" and changed) or (show == "recorded" and value not in (None, "")):
                shown.append(param)
        option_params = {param for _, param, _ in fields}
        for key, value in (facts or {}).items():
            if key in option_params:
                raise ValueError(f"{family}: fact {key!r} is an option's param; pass it as resolved=")
            params[key] = value
        names = self.shown(params, tuple(shown))
        order = [p for p in self.shown_order if p in names] + [p for p in names if p not in self.shown_order]
        # the display lists shown params in params order: shown ones last, in display order
        params = {**{k: v for k, v in params.items() if k not in order}, **{k: params[k] for k in order}}
        return ModelConfig(family=family, name=name, params=params, shown_params=tuple(order), **config)

    def shown(self, params: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str, ...]:
        """The params shown in the display name; a family whose display depends on a resolved value
        overrides this."""
        return names


class KeepsConfig:
    """A model's ``config``, read-only, kept in ``_config`` (``name=`` replaces it there: registry._renamed)."""

    _config: "ModelConfig"

    @property
    def config(self) -> "ModelConfig":
        return self._config


def dtype_field(show: str = "recorded") -> Any:
    """``dtype``: identity, left out at float32; a family whose ids never show it redeclares it with
    ``show="never"`` (elmo, infersent, skipthought)."""
    return identity_field("float32", record="changed", show=show, description="weights and activations precision")


def batch_setting(default: int, description: str = "texts per forward pass") -> Any:
    """A family's ``batch`` (older name ``batch_size``): a run setting."""
    return setting(default, ge=1, validation_alias=AliasChoices("batch", "batch_size"), description=description)


class TorchOptions(ModelOptions):
    """Options of torch-backed families: device and batch are run settings; dtype and max_length identity."""

    device: str = device_setting()
    dtype: Literal[DTYPES] = dtype_field()  # type: ignore[valid-type]
    batch: int = batch_setting(32)
    max_length: int | None = Field(None, ge=1, description="truncate inputs to N tokens (default: the model's "
                                                           "own limit)")
