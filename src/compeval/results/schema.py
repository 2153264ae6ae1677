"""The versioned results schema: one ``TaskResult`` per model × task, written as JSON.

Bump ``SCHEMA_VERSION`` on any incompatible change; readers refuse versions they do not know.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.1"  # 1.1: checksum, data[].modified_allowed; folders named by model id


class Score(BaseModel):
    """One number with its uncertainty and the number of items behind it."""

    model_config = ConfigDict(extra="forbid")

    subset: str = "all"
    metric: str
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int
    details: dict[str, Any] = Field(default_factory=dict)


class DataProvenance(BaseModel):
    """Which data revision produced the score: pinned revision plus hashes of the files read."""

    source: str
    revision: str | None = None
    location: str | None = None
    files: dict[str, str] = Field(default_factory=dict)  # relative path -> sha256
    verified: bool | None = None  # every file's hash matched the pinned one
    modified_allowed: bool = False  # files differing from the pin were used on purpose (--allow-modified-data)


class TaskInfo(BaseModel):
    name: str
    version: str
    suite: str
    params: dict[str, Any] = Field(default_factory=dict)
    main_metric: str
    main_subset: str


class TaskResult(BaseModel):
    schema_version: str = SCHEMA_VERSION
    model: dict[str, Any]  # ModelConfig dump, id included
    task: TaskInfo
    data: list[DataProvenance] = Field(default_factory=list)
    environment: dict[str, str] = Field(default_factory=dict)
    seed: int
    started_at: datetime
    duration_seconds: float
    n_items: int
    main_score: float | None
    scores: list[Score]
    counts: dict[str, Any] = Field(default_factory=dict)  # item counts, missing scores, policies
    cache: dict[str, float] = Field(default_factory=dict)
    predictions_file: str | None = None
    predictions_sha256: str | None = None
    checksum: str | None = None  # SHA-256 of this result's canonical JSON without this field (see store)

    def score(self, metric: str, subset: str = "all") -> Score:
        for s in self.scores:
            if s.metric == metric and s.subset == subset:
                return s
        raise KeyError(f"{self.task.name}: no score {metric!r} for subset {subset!r}")
