"""The one task interface every suite implements.

A task declares validated metadata, loads its data through the data registry (or generates it),
lists the texts it will need (so the runner can encode every unique text once across tasks),
and evaluates a model into scores plus per-item predictions. Tasks see models only through the
protocol in ``compeval.models.protocol``.
"""
from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..context import DEFAULT_CONTEXT, RunContext
from ..data.registry import DataContext
from ..results.schema import Score


class TaskMetadata(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: str = "1"
    suite: str
    description: str
    data_sources: tuple[str, ...] = ()  # names in the data registry; () = generated in code
    main_metric: str
    main_subset: str = "all"
    subsets: tuple[str, ...] = ("all",)
    reference: str = ""

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not v or any(c.isspace() or c in ",:/" for c in v):
            raise ValueError(f"task name {v!r} must be non-empty without spaces, ',', ':' or '/'")
        return v


class TaskOutput(BaseModel):
    """What ``Task.evaluate`` returns; the runner adds provenance and writes a ``TaskResult``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    scores: list[Score]
    n_items: int
    predictions: pd.DataFrame | None = None  # one row per item, for error analysis
    counts: dict[str, Any] = Field(default_factory=dict)


class Task(ABC):
    """Subclasses set ``metadata`` and take their options as explicit keyword arguments.

    ``params`` (the constructor's keyword arguments) are recorded in every result and become part of
    the result file name when they differ from the defaults.
    """

    metadata: ClassVar[TaskMetadata]
    #: False for tasks too slow for the no-argument ``compeval run`` (they train many models); name them to run.
    default_run: ClassVar[bool] = True
    #: The run's settings, set by the runner before ``load`` (``compeval.context``): ``context.torch_device()``
    #: for heads a task trains, ``context.cache_dir``, ``context.model_builder`` for baseline models,
    #: ``context.bnc_dir``. Never part of the task's slug or params.
    context: RunContext = DEFAULT_CONTEXT

    def __init__(self, **params: Any):
        self.params = params

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def slug(self) -> str:
        sig = inspect.signature(type(self).__init__)
        defaults = {k: p.default for k, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}
        extra = {k: v for k, v in self.params.items() if defaults.get(k, object()) != v}
        return self.name + "".join(f"__{k}-{v}" for k, v in sorted(extra.items()))

    def missing_requirements(self) -> str | None:
        """What the user must supply beyond the registry's data (e.g. a licensed corpus), or None."""
        return None

    def load(self, data: DataContext) -> None:
        """Read (or generate) the items. Called once before ``texts`` and ``evaluate``."""

    def texts(self) -> list[str]:
        """Every text this task will ask an encoder for (repeats allowed); [] if none known upfront."""
        return []

    @abstractmethod
    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        """Score ``model`` (an Encoder and/or PairScorer behind the cache)."""
