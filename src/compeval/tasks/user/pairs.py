"""``pairs``: sentence pairs with a gold score, scored by ``tasks.sts.tasks.STSTask`` (nothing re-implemented)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...data.registry import DataContext
from ..base import TaskMetadata
from ..sts.tasks import STSOptions, STSTask
from .base import SUITE, UserTask, check_duplicates, number_cell, subset_values, text_cell
from .tables import Table
from ...lazy import lazy_module

pd = lazy_module("pandas")


class PairsOptions(STSOptions):
    a: str = "a"  # column of the first sentence
    b: str = "b"  # column of the second sentence
    score: str = "score"  # column of the gold similarity (any finite number; only its order matters to Spearman)
    subset: str = ""  # column whose values name subsets (e.g. adversarial / control); "" = none


class UserPairs(UserTask, STSTask):
    kind = "pairs"
    metadata = TaskMetadata(name="pairs", suite=SUITE, main_metric="spearman",
                            description="a user's sentence pairs with gold scores: Spearman and Pearson, STS method")
    Options = PairsOptions
    options: PairsOptions
    main_metric = "spearman"
    min_rows = 3  # a correlation with an interval
    #: ``non_minus_adv``: the STS method's gap (``STSTask``) when the subsets ``non`` and ``adv`` are given.
    own_subsets = ("all", "non_minus_adv")

    def prepare(self, table: Table) -> None:
        o = self.options
        a = [text_cell(table, i, o.a, v) for i, v in enumerate(table.column("a", o.a))]
        b = [text_cell(table, i, o.b, v) for i, v in enumerate(table.column("b", o.b))]
        gold = [number_cell(table, i, o.score, v) for i, v in enumerate(table.column("score", o.score))]
        check_duplicates(table, list(zip(a, b)), f"{o.a}, {o.b}")
        self.frame = pd.DataFrame({"sentence_1": a, "sentence_2": b, "gold": gold, "line": table.lines})
        if len(set(gold)) < 2:
            raise table.bad(0, o.score, "every gold score is the same; a correlation needs them to vary")
        self.groups: dict[str, np.ndarray] = {}
        if o.subset:
            values = np.array(subset_values(table, o.subset, "subset", self.own_subsets), dtype=object)
            self.groups = {v: np.flatnonzero(values == v) for v in dict.fromkeys(values.tolist())}

    def subset_names(self) -> list[str]:
        names = list(self.groups)
        return names + (["non_minus_adv"] if {"non", "adv"} <= set(names) else [])

    def read(self, data: DataContext | None) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
        return self.frame, dict(self.groups)

    def evaluate(self, model: Any, *, seed: int):
        out = super().evaluate(model, seed=seed)
        out.counts.update(self.source_record)
        return out
