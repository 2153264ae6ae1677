"""Task interface every suite implements; tasks see models only through ``compeval.models.protocol``."""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..context import DEFAULT_CONTEXT, RunContext
from ..data.registry import DataContext
from ..results.schema import Direction, PublishedScore, Score, TaskInfo
from .options import TaskOptions
from ..lazy import lazy_module

pd = lazy_module("pandas")


class TaskMetadata(BaseModel):
    """What a task is and the facts its results carry, so the report reads them from the results alone."""

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
    #: Metrics that are not higher-is-better: "lower", or "none" for numbers that describe and do not rank.
    directions: dict[str, Direction] = Field(default_factory=dict)
    #: False when the score does not depend on the model: shown in the suite's section, never on the leaderboard.
    ranked: bool = True
    #: Figures the papers report for this task (on its subsets and metrics), shown beside compeval's own.
    published: tuple[PublishedScore, ...] = ()

    def task_info(self, params: dict[str, Any]) -> TaskInfo:
        """The record of this task in a result: identity, options and every fact above."""
        return TaskInfo(name=self.name, version=self.version, suite=self.suite, params=params,
                        main_metric=self.main_metric, main_subset=self.main_subset, directions=dict(self.directions),
                        ranked=self.ranked, data_sources=list(self.data_sources), published=list(self.published))

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not v or any(c.isspace() or c in ",:/" for c in v):
            raise ValueError(f"task name {v!r} must be non-empty without spaces, ',', ':' or '/'")
        return v

    @model_validator(mode="after")
    def _published_rows(self) -> "TaskMetadata":
        keys = [(p.model, p.subset, p.metric) for p in self.published]
        if len(keys) != len(set(keys)):
            raise ValueError(f"task {self.name!r}: a published figure is listed twice")
        unknown = {p.subset for p in self.published} - set(self.subsets)
        if unknown:
            raise ValueError(f"task {self.name!r}: published rows name unknown subsets {sorted(unknown)}")
        return self


class EvalCost(BaseModel):
    """Seconds one ``evaluate`` costs beyond encoding on ``cpu-2core`` (``benchmarks/eval_vs_encode.py --costs``)
    for a 50-wide (glove-6b-50d) and a 384-wide model (all-MiniLM-L6-v2); ``--plan`` interpolates other widths
    on the power law through the two points (a probe's MLP cost grows about with the square of the width)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    at_50: float = Field(ge=0)
    at_384: float = Field(ge=0)

    def seconds(self, width: int) -> float:
        import math

        if self.at_50 <= 0 or self.at_384 <= 0:
            return max(self.at_50, self.at_384)
        power = math.log(self.at_384 / self.at_50) / math.log(384 / 50)
        return self.at_384 * (width / 384) ** power


class TaskOutput(BaseModel):
    """What ``Task.evaluate`` returns; the runner adds provenance and writes a ``TaskResult``."""

    scores: list[Score]
    n_items: int
    # a pandas DataFrame, one row per item, for error analysis; typed Any and checked below, because pydantic
    # resolves a field's type when the class is made, and listing tasks should not load pandas
    predictions: Any = None
    counts: dict[str, Any] = Field(default_factory=dict)

    @field_validator("predictions")
    @classmethod
    def _frame(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, pd.DataFrame):
            raise ValueError(f"predictions must be a pandas DataFrame or None, not {type(value).__name__}")
        return value


class Task(ABC):
    """Subclasses set ``metadata`` and an ``Options`` class, validated by ``Task(**options)`` (docs/contributing.md)."""

    metadata: ClassVar[TaskMetadata]
    Options: ClassVar[type[TaskOptions]] = TaskOptions
    #: False for tasks too slow for the no-argument ``compeval run`` (they train many models); name them to run.
    default_run: ClassVar[bool] = True
    #: The measured cost of one ``evaluate`` (``--plan`` counts it); None: not measured, said so by the plan.
    eval_cost: ClassVar[EvalCost | None] = None
    #: Options (``KEY=VALUE,…``, "" for none) under which this task stands for its suite in ``compeval run
    #: --quick``, at reduced sizes; None: not its suite's quick task (one task per suite sets it).
    quick: ClassVar[str | None] = None
    #: Options (``KEY=VALUE,…``) for ``tests/core/test_task_conformance.py``'s ``check_task``: the smallest sizes,
    #: unlike the defaults (the round trip is checked on them). None is refused there.
    conformance_options: ClassVar[str | None] = None
    #: True for a task that fine-tunes its model: the conformance check's fixed encoder cannot be trained,
    #: so it checks metadata and options only, and that the task refuses that model in one line.
    trains_model: ClassVar[bool] = False
    #: The run's settings (``compeval.context``), set by the runner before ``load``; never in the slug or params.
    context: RunContext = DEFAULT_CONTEXT
    #: The spec string ``get_tasks`` built this task from (workers receive the task itself, never rebuilt).
    spec: str | None = None

    def __init__(self, **options: Any):
        self.options = self.Options.build(self.metadata.name, options)

    @property
    def params(self) -> dict[str, Any]:
        return self.options.params()

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def slug(self) -> str:
        return self.name + self.options.slug_suffix()

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

    def staged(self, model: Any, *, seed: int) -> Callable[[], TaskOutput] | None:
        """Optional: ``evaluate`` in two parts, the model's part now and the rest as the returned call, which
        touches no model, no global random state and nothing another job shares. The runner runs such calls
        beside each other, one per free core (``runner/loop.py``), so long trained heads of several tasks
        overlap. A task that stages returns ``self.staged(model, seed=seed)()`` from ``evaluate``; None (the
        default): the task runs whole, alone."""
        return None

    @classmethod
    def stages(cls) -> bool:
        """True for a task that overrides ``staged``."""
        return cls.staged is not Task.staged

    #: Why ``compeval verify`` only checks this task's scores (hashes, data, versions) and does not recompute
    #: them from its predictions file; unused by a task that implements ``score_predictions``.
    not_recomputed: ClassVar[str] = ""

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """The scores ``evaluate`` gave, recomputed by the same scoring code from the written ``predictions`` and
        the loaded data, for ``compeval verify``: hashes can be rewritten after an edit, a recomputed score cannot.
        A ``DataError`` when the predictions are not of this data; tasks that cannot say why in ``not_recomputed``."""
        raise NotImplementedError(self.not_recomputed)

    @classmethod
    def recomputes_scores(cls) -> bool:
        """True when ``score_predictions`` is implemented (``compeval verify`` recomputes the scores)."""
        return cls.score_predictions is not Task.score_predictions


def items_in_order(predictions: pd.DataFrame, n: int, where: str) -> pd.DataFrame:
    """The predictions' rows in item order when their ``item`` column numbers the ``n`` items 0…n-1 once each
    (a dropped or repeated row would let another row's value stand in), else the rows as they are if ``n``."""
    import numpy as np

    from ..errors import DataError

    if "item" not in predictions:
        if len(predictions) != n:
            raise DataError(f"{where}: the predictions hold {len(predictions)} rows; the data has {n} items")
        return predictions
    def number(v: object) -> float:  # an item is a JSON number; text, a boolean or a list names no item
        return float(v) if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) \
            else float("nan")

    items = predictions["item"].map(number).astype(float)
    counts = items.value_counts()
    repeated = int((counts > 1).sum())
    absent = n - int(items[items.isin(range(n))].nunique())
    if len(predictions) != n or repeated or absent or items.isna().any():
        raise DataError(f"{where}: the predictions' rows are not the data's {n} items once each "
                        f"({len(predictions)} rows, {repeated} item(s) repeated, {absent} absent)")
    return predictions.iloc[np.argsort(items.to_numpy(), kind="stable")]
