"""``triplets``: an anchor and candidates in an expected order, scored by whether the model orders them so.

Ties (``metrics.ties``) and missing similarities count as wrong and are recorded (docs/user-tasks.md)."""
from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import model_validator

from ...errors import DataError, SpecError
from ...metrics.bootstrap import mean_ci
from ...metrics.ties import at_rank_precision
from ...results.schema import Score
from ...results.store import as_written
from ..base import TaskMetadata, TaskOutput, items_in_order
from ..options import TaskOptions, resamples
from ..scoring import compare
from .base import SUITE, UserTask, check_duplicates, subset_values, text_cell
from .tables import Table
from ... import seeds
from ...lazy import lazy_module

pd = lazy_module("pandas")


class TripletsOptions(TaskOptions):
    anchor: str = "anchor"  # column of the anchor sentence
    closer: str = "closer"  # column of the candidate expected closer to the anchor
    farther: str = "farther"  # column of the candidate expected farther from it
    ranked: str = ""  # instead of closer/farther: candidate columns from closest to farthest, joined by '|'
    category: str = ""  # column whose values name subsets; "" = none
    bootstrap: int = resamples()

    @model_validator(mode="after")
    def _one_form(self) -> "TripletsOptions":
        if self.ranked:
            if (self.closer, self.farther) != ("closer", "farther"):
                raise ValueError("give ranked=C1|C2|… or closer= and farther=, not both")
            if len(self.candidate_columns()) < 2 or "" in self.candidate_columns():
                raise ValueError(f"ranked={self.ranked!r} must name at least two columns joined by '|'")
        return self

    def candidate_columns(self) -> list[str]:
        return [c.strip() for c in self.ranked.split("|")] if self.ranked else [self.closer, self.farther]


class UserTriplets(UserTask):
    kind = "triplets"
    metadata = TaskMetadata(name="triplets", suite=SUITE, main_metric="accuracy",
                            description="a user's anchors with candidates in an expected order: accuracy of the "
                                        "model's order")
    Options = TripletsOptions
    options: TripletsOptions
    main_metric = "accuracy"

    def prepare(self, table: Table) -> None:
        o = self.options
        cols = o.candidate_columns()
        if len(set(cols)) != len(cols) or o.anchor in cols:
            raise SpecError(f"task {self.kind!r}: the anchor and candidate columns must differ ({o.anchor}, "
                            f"{', '.join(cols)})")
        self.anchors = [text_cell(table, i, o.anchor, v) for i, v in enumerate(table.column("anchor", o.anchor))]
        roles = ["ranked"] * len(cols) if o.ranked else ["closer", "farther"]
        self.candidates = [[text_cell(table, i, c, v) for i, v in enumerate(table.column(role, c))]
                           for role, c in zip(roles, cols)]
        for i in range(len(self.anchors)):
            texts = [self.anchors[i], *(cand[i] for cand in self.candidates)]
            if len(set(texts)) != len(texts):
                raise table.bad(i, ", ".join([o.anchor, *cols]), "the same text twice in one item; its order "
                                                                  "is undefined")
        check_duplicates(table, list(zip(self.anchors, *self.candidates)), ", ".join([o.anchor, *cols]))
        self.lines = list(table.lines)
        self.categories = subset_values(table, o.category, "category", self.own_subsets) if o.category else None

    def subset_names(self) -> list[str]:
        return list(dict.fromkeys(self.categories)) if self.categories else []

    def texts(self) -> list[str]:
        return self.anchors + [t for cand in self.candidates for t in cand]

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        n, k = len(self.anchors), len(self.candidates)
        # one call for every (anchor, candidate) pair: the cache encodes each distinct text once
        sims = compare(model, self.anchors * k, [t for cand in self.candidates for t in cand], "none")
        # (items, candidates), declared order; as the predictions file holds them: verify recomputes exactly
        sims = as_written(np.asarray(sims, dtype=np.float64).ravel()).reshape(k, n).T
        i, j = np.triu_indices(k, 1)
        before, after = at_rank_precision(sims[:, i]), at_rank_precision(sims[:, j])
        scores, value = self._scores(sims, seed)
        B = self.options.bootstrap
        cols = self.options.candidate_columns()
        predictions = pd.DataFrame({"item": np.arange(n), "line": self.lines, "anchor": self.anchors,
                                    **{f"candidate_{m}": cand for m, cand in enumerate(self.candidates)},
                                    **{f"sim_{m}": sims[:, m] for m in range(k)},
                                    "correct": value})
        if self.categories is not None:
            predictions["category"] = self.categories
        counts = {**self.source_record, "items": n, "candidates": cols, "orderings": int(n * len(i)),
                  "ties": int((before == after).sum()), "missing_scores": int(np.isnan(sims).sum()),
                  "missing_policy": "a NaN similarity orders wrong", "ties_policy": "a tie orders wrong (strict >)",
                  "bootstrap_resamples": B, "bootstrap_method": "percentile"}
        return TaskOutput(scores=scores, n_items=n, predictions=predictions, counts=counts)

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """The scores from the predictions' similarities (``sim_<m>``, NaN where missing); their anchors and
        candidates must be the user's rows, in order."""
        n, k = len(self.anchors), len(self.candidates)
        pred = items_in_order(predictions, n, self.slug)
        columns = ["anchor", *(f"candidate_{m}" for m in range(k)), *(f"sim_{m}" for m in range(k))]
        if any(c not in pred for c in columns):
            raise DataError(f"{self.slug}: the predictions lack one of the columns {', '.join(columns)}")
        for column, texts in [("anchor", self.anchors), *((f"candidate_{m}", c) for m, c in enumerate(self.candidates))]:
            if pred[column].astype(str).tolist() != list(texts):
                raise DataError(f"{self.slug}: the predictions' {column} differ from the data's")
        sims = np.stack([pd.to_numeric(pred[f"sim_{m}"], errors="coerce").to_numpy(dtype=np.float64)
                         for m in range(k)], axis=1)
        return self._scores(sims, seed)[0]

    def _scores(self, sims: np.ndarray, seed: int) -> tuple[list[Score], np.ndarray]:
        """The scores and each item's share of candidate pairs in the declared order, from the (items,
        candidates) similarities: evaluate's and score_predictions' one path."""
        n, k = sims.shape
        i, j = np.triu_indices(k, 1)
        ranked = at_rank_precision(sims)  # equal at the rank precision: a tie
        before, after = ranked[:, i], ranked[:, j]
        right = before > after  # NaN compares False: a missing similarity counts as wrong
        value = right.mean(axis=1)
        B = self.options.bootstrap
        groups = {"all": np.arange(n)}
        if self.categories is not None:
            cats = np.array(self.categories, dtype=object)
            groups.update({c: np.flatnonzero(cats == c) for c in dict.fromkeys(self.categories)})
        scores = []
        for subset, rows in groups.items():
            v = value[rows]
            low, high = mean_ci(v, n_resamples=B, seed=seeds.derive(seed, "triplets", subset)) if len(v) > 1 else (None, None)
            scores.append(Score(subset=subset, metric="accuracy", value=float(v.mean()), ci_low=_finite(low),
                                ci_high=_finite(high), n=int(len(v)), details={
                                    "orderings_per_item": int(len(i)), "interval": "percentile bootstrap over items",
                                    "ties": int((before[rows] == after[rows]).sum())}))
        return scores, value


def _finite(x: float | None) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None
