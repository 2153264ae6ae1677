"""The versioned results schema: one ``TaskResult`` per model × task, as JSON. Bump ``SCHEMA_VERSION`` on any
incompatible change; readers refuse versions they do not know."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

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


#: Which way a metric is better: ``none`` for numbers that describe rather than rank (a reliability, a count).
Direction = Literal["higher", "lower", "none"]


class PublishedScore(BaseModel):
    """A number a paper reports for a task (on its subset and metric), shown beside computed scores and
    never mixed with them; ``note`` says where the paper's setting differs from compeval's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
    subset: str = "all"
    metric: str
    value: float
    citation: str
    note: str = ""


class TaskInfo(BaseModel):
    """The task as its result records it: identity, options, and what a reader needs to show the scores.
    The optional fields after ``main_subset`` may be None in older results: readers take them from the task."""

    name: str
    version: str
    suite: str
    params: dict[str, Any] = Field(default_factory=dict)
    main_metric: str
    main_subset: str
    directions: dict[str, Direction] | None = None  # metrics that are not higher-is-better
    ranked: bool | None = None  # False: the result does not depend on the model (never on a leaderboard)
    data_sources: list[str] | None = None  # data registry names the task reads; [] = generated in code
    published: list[PublishedScore] | None = None

    def direction(self, metric: str) -> int:
        """+1 when higher is better, -1 when lower is better, 0 when neither (rank nothing)."""
        return {"higher": 1, "lower": -1, "none": 0}[(self.directions or {}).get(metric, "higher")]


class TaskResult(BaseModel):
    schema_version: str = SCHEMA_VERSION
    model: dict[str, Any]  # ModelConfig dump, id included
    task: TaskInfo
    data: list[DataProvenance] = Field(default_factory=list)
    environment: dict[str, str] = Field(default_factory=dict)
    seed: int
    #: ``compeval.seeds.SEED_RULE`` the random streams were derived under; None: written before it was
    #: recorded (each stream seeded ``seed + k``), which ``runner.reuse`` treats as a change and recomputes.
    seed_rule: int | None = None
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
