"""Model spec options: each family declares ``class Options(ModelOptions)`` (``TorchOptions`` where torch
runs it) and registers it with ``register_model(..., options=Options)``.

Parsing the ``,key=value`` strings, every validation message, ranges, older names, the option list of
``compeval models FAMILY`` and the spec form (``[,pool=mean|cls|last]``) come from the one options base
(``compeval.options``). Fields declared with ``setting(…)`` are run settings (device, batch size: recorded
in ``ModelConfig.settings``, never in the id); the others are identity, which the model records in its
``ModelConfig.params``. A family may redeclare an inherited option to change its default.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, Field

from ..options import OptionsBase, device_setting, is_run_setting, setting

__all__ = ["DTYPES", "MAX_DIM", "ModelOptions", "TorchOptions", "batch_setting"]

#: Bound of vector sizes: 65,536 float32 dimensions × 10,000 texts is 2.6 GB already.
MAX_DIM = 65_536

DTYPES = ("float32", "float16", "bfloat16")


class ModelOptions(OptionsBase):
    """The options every family accepts; the builder applies them around the family's model."""

    name: str | None = Field(None, description="the model's name in results (default: the package, repo id or "
                                               "folder name)")

    def identity(self) -> dict[str, Any]:
        """The options that change what the model computes, by one rule: every option that is not a run setting
        (``compeval.options.setting``) except ``name`` (the model's name, kept beside its params), under the
        name the model's params record it by (``param=`` in the field's ``json_schema_extra``, as ``pool`` →
        ``pooling``). A family's ``ModelConfig.params`` holds each of these that is set away from its default,
        with the same value (tests/models/test_resolved.py checks every family); at a default it records the
        value the default resolves to (``layer=-1`` → the last layer's number) or leaves it out
        (``dtype=float32``), as the ids written before it did."""
        params, out = self.params(), {}
        for key, f in type(self).model_fields.items():
            if key != "name" and not is_run_setting(f):
                extra = f.json_schema_extra if isinstance(f.json_schema_extra, dict) else {}
                out[str(extra.get("param", key))] = params[key]
        return out


def batch_setting(default: int, description: str = "texts per forward pass") -> Any:
    """A family's ``batch`` (older name ``batch_size``): a run setting."""
    return setting(default, ge=1, validation_alias=AliasChoices("batch", "batch_size"), description=description)


class TorchOptions(ModelOptions):
    """Options of torch-backed families: device and batch are run settings; dtype and max_length identity."""

    device: str = device_setting()
    dtype: Literal[DTYPES] = Field("float32", description="weights and activations precision")  # type: ignore[valid-type]
    batch: int = batch_setting(32)
    max_length: int | None = Field(None, ge=1, description="truncate inputs to N tokens (default: the model's "
                                                           "own limit)")
