"""What every task built from a user's data shares: its table, read and checked once when the task is made
(before any job runs, so a bad file stops the run with one line naming file, line and column), its
identity and its metadata.

The id is ``NAME__<12 hex digits>``, hashing the kind, its version, every option and the data's content
digest (a file's SHA-256, a dataset's rows as canonical JSON); not the file's path (the same file named from
another folder is the same task), nor the description and citation, which compute nothing.
"""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any, ClassVar

from ...errors import MalformedDataError, SpecError
from ...names import task_name_problem, text_problem
from ...specs import Spec
from ..base import Task, TaskMetadata
from .tables import HF_PREFIX, Table, read_file

SUITE = "user"
#: Options of the declaration itself, not of the method: they name and describe the task.
DESCRIBING = ("name", "description", "citation")


class UserTask(Task):
    """Base of the kinds (``pairs``, ``triplets``, ``probe``, ``modifiers``): each declares ``kind``, its
    ``Options`` (columns, then the method's options), ``prepare(table)`` and its main metric and subset."""

    kind: ClassVar[str]
    main_metric: ClassVar[str]
    main_subset: ClassVar[str] = "all"
    directions: ClassVar[dict[str, str]] = {}
    #: Least rows the method needs (fewer is a one-line error naming the file).
    min_rows: ClassVar[int] = 2
    #: Subset names the method gives its own scores: a user's subset of one of these names is refused
    #: (``subset_values``), else two numbers would sit under one (metric, subset) key.
    own_subsets: ClassVar[tuple[str, ...]] = ("all",)

    def __init__(self, source: str, *, name: str | None = None, description: str = "", citation: str = "",
                 split: str | None = None, base_dir: Path | None = None, spec_string: str | None = None,
                 **options: Any):
        super().__init__(**options)
        table = read_source(source, base_dir, split)
        if len(table.rows) < self.min_rows:
            raise MalformedDataError(table.where, table.lines[-1], f"only {len(table.rows)} row(s); the {self.kind} "
                                                                   f"method needs at least {self.min_rows}")
        self.prepare(table)
        self.source_record = {"kind": self.kind, "source": table.where, **table.record}
        _check_name(name or table.stem, given=bool(name))
        name = name or table.stem
        identity = {"kind": self.kind, "version": type(self).metadata.version, "params": self.params,
                    "data_sha256": table.digest}
        self.digest = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()
        self.metadata = TaskMetadata(
            name=name, version=type(self).metadata.version, suite=SUITE, main_metric=self.main_metric,
            main_subset=self.main_subset, subsets=tuple(dict.fromkeys(("all", *self.subset_names()))),
            description=description or f"{self.kind} from {table.where} ({len(table.rows)} rows)",
            reference=citation, directions=dict(self.directions))
        self.spec = spec_string
        self.source_record.update(declaration_sha256=self.digest, description=self.metadata.description,
                                  citation=citation)

    @classmethod
    def from_spec(cls, spec: Spec) -> UserTask:
        """``KIND:SOURCE,…`` → the task (its data read and checked)."""
        if not spec.arg:
            raise SpecError(f"task spec {spec}: give the data after '{spec.name}:' (a .csv, .tsv or .jsonl file, or "
                            "hf-dataset:ORG/NAME@REVISION)")
        options = dict(spec.options)
        described = {k: options.pop(k) for k in DESCRIBING if k in options}
        split = options.pop("split", None)
        source = spec.arg if spec.arg.startswith("hf-dataset:") else str(Path(spec.arg).expanduser().resolve())
        rebuilt = Spec(spec.name, source, dict(spec.options))
        return cls(source, split=split, spec_string=str(rebuilt), **described, **options)

    @property
    def slug(self) -> str:
        return f"{self.name}__{self.digest[:12]}"

    def prepare(self, table: Table) -> None:
        raise NotImplementedError

    def subset_names(self) -> list[str]:
        return []


def read_source(source: str, base_dir: Path | None = None, split: str | None = None) -> Table:
    """The rows of ``source``: a file (relative to ``base_dir`` when given) or ``hf-dataset:…`` (``hub``)."""
    if source.startswith(HF_PREFIX):
        from .hub import read_dataset  # datasets is imported only for a dataset

        return read_dataset(source[len(HF_PREFIX):], split, base_dir)
    return read_file(source, base_dir, split)


def _check_name(name: str, given: bool = True) -> None:
    """The rule of task names (``names.task_name_problem``), and no built-in task's or suite's name."""
    from ..registry import TASKS, suites

    problem = task_name_problem(name)
    if problem is not None:
        raise SpecError(problem + ("" if given else "; the name is the data file's: give another with name=…"))
    if name in TASKS or name in suites():
        raise SpecError(f"task name {name!r} is a built-in task or suite; give another with name=…")


# --- cell checks: one line naming file, line and column ---------------------------------------------------

def text_cell(table: Table, i: int, column: str, value: Any) -> str:
    if value is None:
        raise table.bad(i, column, "missing (every row needs it)")
    if not isinstance(value, str):
        raise table.bad(i, column, f"expected text, got {value!r}")
    if not value.strip():
        raise table.bad(i, column, "empty text")
    return value.strip()


def number_cell(table: Table, i: int, column: str, value: Any) -> float:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise table.bad(i, column, "missing score")
    if isinstance(value, bool):
        raise table.bad(i, column, f"score {value!r} is not a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise table.bad(i, column, f"score {value!r} is not a number") from None
    if not math.isfinite(number):
        raise table.bad(i, column, f"score {value!r} is not a finite number")
    return number


#: The kinds of value a label column may hold (one per column): JSON text, numbers or booleans.
LABEL_KINDS = {str: "text", bool: "a boolean", int: "a number", float: "a number"}


def label_cell(table: Table, i: int, column: str, value: Any) -> str:
    """A category or label as text: text stripped; a number as the shortest text of its value (``1`` and
    ``1.0`` are ``1``, ``2.50`` is ``2.5``); a boolean as ``true`` / ``false``. A label names a subset in
    every view, so it follows the rule of names (``names.text_problem``)."""
    if value is None:
        raise table.bad(i, column, "missing (every row needs it)")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise table.bad(i, column, f"{value!r} is not a label")
        return str(int(value)) if value.is_integer() else repr(value)
    if not isinstance(value, str):
        raise table.bad(i, column, f"expected a label (text, a number or a boolean), got {value!r}")
    text = value.strip()
    if not text:
        raise table.bad(i, column, "empty value")
    problem = text_problem(text, "value")
    if problem is not None:
        raise table.bad(i, column, problem)
    return text


def label_column(table: Table, column: str, role: str) -> list[str]:
    """The labels of ``column`` (``label_cell``); values of two kinds (text and numbers, numbers and booleans)
    are an error naming the first line of each kind, since which of them name one class is a guess."""
    values = table.column(role, column)
    first_of: dict[str, int] = {}
    for i, v in enumerate(values):
        kind = LABEL_KINDS.get(type(v))
        if kind is None:
            continue  # label_cell names it
        first_of.setdefault(kind, i)
        if len(first_of) > 1:
            (k1, i1), (k2, i2) = first_of.items()
            raise table.bad(i2, column, f"{values[i2]!r} is {k2}, but line {table.lines[i1]} holds {k1} "
                                        f"({values[i1]!r}); write every value of the column as one kind")
    return [label_cell(table, i, column, v) for i, v in enumerate(values)]


def check_duplicates(table: Table, keys: list[Any], what: str) -> None:
    seen: dict[Any, int] = {}
    for i, key in enumerate(keys):
        first = seen.setdefault(key, i)
        if first != i:
            shown = " / ".join(key) if isinstance(key, tuple) else str(key)
            shown = shown if len(shown) <= 80 else shown[:80] + "…"
            raise table.bad(i, what, f"duplicate item {shown!r}: also on line {table.lines[first]}; keep one")


def subset_values(table: Table, column: str, role: str, own: tuple[str, ...] = ("all",)) -> list[str]:
    """A grouping column's values, each a subset's name; ``own`` (``UserTask.own_subsets``) are taken, and so
    is ``/``, which joins the parts of a probe's subsets (``logreg/label=V``)."""
    values = label_column(table, column, role)
    for i, v in enumerate(values):
        if v in own or "/" in v:
            raise table.bad(i, column, f"{v!r} names a subset of compeval's own ({', '.join(own)}, or a name with "
                                       "'/'); rename it")
    return values
