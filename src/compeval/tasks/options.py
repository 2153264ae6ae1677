"""Task options: a pydantic model per task on ``compeval.options.OptionsBase`` (docs/contributing.md)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from pydantic import Field
from pydantic.fields import FieldInfo

from ..errors import SpecError
from ..metrics import DEFAULT_RESAMPLES, MAX_RESAMPLES, MIN_RESAMPLES
from ..options import OptionsBase, domain_check

__all__ = ["BOOTSTRAP", "TaskOptions", "domain_check", "path_text", "resamples"]

#: Bootstrap resamples behind every 95% interval (the paper setting in every suite).
BOOTSTRAP = DEFAULT_RESAMPLES

#: Resample counts are bounded as the report's ``--resamples`` (100,000: seconds per interval on the
#: largest task) when they declare no bound; other integers as ``compeval.options.OptionsBase.implicit_cap``.
MAX_RESAMPLE_OPTION = MAX_RESAMPLES
RESAMPLE_OPTIONS = ("bootstrap", "n_resamples", "splits", "repeats", "permutations")


def resamples() -> Any:
    """The field of a resample count behind a 95% interval: 1,000 by default (the paper's), at least
    ``MIN_RESAMPLES`` (fewer cannot span a 95% interval), so the bound a listing shows is the one enforced."""
    return Field(BOOTSTRAP, ge=MIN_RESAMPLES)


class TaskOptions(OptionsBase):
    """Base of every task's ``Options``; field order is the order recorded in results."""

    @classmethod
    def implicit_cap(cls, name: str, field: FieldInfo) -> int | None:
        cap = super().implicit_cap(name, field)
        return MAX_RESAMPLE_OPTION if cap is not None and name in RESAMPLE_OPTIONS else cap

    @classmethod
    def build(cls, task: str, values: Mapping[str, Any]) -> "TaskOptions":
        """Validate keyword values; a SpecError names the task, the option, the value and what is allowed."""
        return cls.parse(values, f"task {task!r}")  # type: ignore[return-value]


def path_text(value: Any) -> Any:
    """A file-name option as the absolute path it names (a ``pathlib.Path`` from the Python API too), since the
    same relative name in another folder is another input. A URL-like value is kept as typed, for its error."""
    value = os.fspath(value) if isinstance(value, os.PathLike) else value
    if isinstance(value, str) and value.strip() and "://" not in value:
        return str(Path(value).expanduser().resolve())
    return value
