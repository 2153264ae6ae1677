"""``probe``: labelled sentences, scored by the probing method (``tasks.probing.evaluation``; docs/user-tasks.md)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from pydantic import Field

from ... import seeds
from ...errors import MalformedDataError

from ...results.schema import Score
from ...training.settings import MLP_HEADS_VERSION
from ..base import TaskMetadata, TaskOutput
from ..probing.classifiers import LOGREG_FOLDS
from ..probing.evaluation import CONTROL_GAUSSIAN, CONTROL_RANDOM_PROBE, ClassifierOptions, ProbeProblem, ProbeSplit
from ..probing.evaluation import staged_problems, score_predictions
from .base import SUITE, UserTask, check_duplicates, label_column, text_cell
from .tables import Table
from ...lazy import lazy_module

pd = lazy_module("pandas")


class ProbeOptions(ClassifierOptions):
    text: str = "text"  # column of the sentence
    label: str = "label"  # column of its label (two or more values)
    partition: str = ""  # column with train / test per row; "" = a stratified split
    test_fraction: float = Field(0.25, gt=0, lt=1)  # without partition=: share of each label held out
    split_seed: int = Field(0, ge=0)  # without partition=: the split's seed
    classifiers: str = "logreg"  # joined by '+': logreg, mlp


class UserProbe(UserTask):
    kind = "probe"
    metadata = TaskMetadata(name="probe", suite=SUITE, main_metric="accuracy", main_subset="logreg",
                            version=MLP_HEADS_VERSION,
                            description="a user's labelled sentences: probing classifiers beside a control")
    Options = ProbeOptions
    options: ProbeOptions
    main_metric, main_subset = "accuracy", "logreg"
    min_rows = 4

    def prepare(self, table: Table) -> None:
        o = self.options
        self.sentences = [text_cell(table, i, o.text, v) for i, v in enumerate(table.column("text", o.text))]
        labels = label_column(table, o.label, "label")
        check_duplicates(table, self.sentences, o.text)
        self.labels = np.array(labels, dtype=object)
        self.values = sorted(set(labels))
        if len(self.values) < 2:
            raise table.bad(0, o.label, f"every row has label {self.values[0]!r}; a probe needs two or more")
        if o.partition:
            parts = [p.lower() for p in label_column(table, o.partition, "partition")]
            for i, p in enumerate(parts):
                if p not in ("train", "test"):
                    raise table.bad(i, o.partition, f"{p!r}: write train or test")
            self.test = np.array([p == "test" for p in parts])
        else:
            from sklearn.model_selection import train_test_split

            for v in self.values:
                if (self.labels == v).sum() < 2:
                    raise table.bad(int(np.flatnonzero(self.labels == v)[0]), o.label,
                                    f"label {v!r} has one row; a stratified split needs two or more")
            _, test_rows = train_test_split(np.arange(len(labels)), test_size=o.test_fraction, stratify=labels,
                                            random_state=seeds.derive(o.split_seed, "user-probe-split"))
            self.test = np.zeros(len(labels), dtype=bool)
            self.test[test_rows] = True
        # two labels: one probe (the second value in sorted order is the positive class); more: one per label
        positives = [self.values[1]] if len(self.values) == 2 else self.values
        self.choices = [f"{o.label}={v}" for v in positives]
        for v in self.values:  # each probe's cross-validation needs every class in each of its folds
            n_train = int(((self.labels == v) & ~self.test).sum())
            n_rest = int(((self.labels != v) & ~self.test).sum())
            if min(n_train, n_rest) < LOGREG_FOLDS:
                raise MalformedDataError(table.where, table.lines[-1], f"column {o.label!r}: label {v!r} has "
                                         f"{n_train} training row(s) against {n_rest}; the probe's "
                                         f"{LOGREG_FOLDS}-fold cross-validation needs {LOGREG_FOLDS} of each")
            if not ((self.labels == v) & self.test).any():
                raise MalformedDataError(table.where, table.lines[-1], f"column {o.label!r}: label {v!r} has no "
                                                                       "test row")
        self.positives = positives
        self.lines = list(table.lines)

    def subset_names(self) -> list[str]:
        names = [*self.options.classifier_names(), CONTROL_GAUSSIAN, CONTROL_RANDOM_PROBE]
        return names + ([f"{n}/{c}" for n in names[:-1] for c in self.choices] if len(self.choices) > 1 else [])

    def texts(self) -> list[str]:
        return list(self.sentences)

    def _split(self, rows: np.ndarray, positive: str) -> ProbeSplit:
        return ProbeSplit(texts=[self.sentences[i] for i in rows], probes=[() for _ in rows],
                          labels=self.labels[rows] == positive, units=rows)

    def _problems(self) -> list[ProbeProblem]:
        train, test = np.flatnonzero(~self.test), np.flatnonzero(self.test)
        return [ProbeProblem(choice, self._split(train, v), self._split(test, v),
                             extra={"line": [self.lines[i] for i in test], "gold_label": self.labels[test].tolist()})
                for choice, v in zip(self.choices, self.positives)]

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """Accuracies from the predicted labels of the test sentences (the probes are not refitted)."""
        return score_predictions(self._problems(), predictions, seed=seed, options=self.options, probe_features=False)

    def staged(self, model: Any, *, seed: int) -> Callable[[], TaskOutput]:
        finish = staged_problems(model, self._problems(), seed=seed, options=self.options,
                                 device=self.context.torch_device(), probe_features=False, probe_vocab=[])
        extra = dict(self.source_record, labels={v: int((self.labels == v).sum()) for v in self.values},
                     train_test="column " + self.options.partition if self.options.partition else
                     f"stratified, test_fraction={self.options.test_fraction}, seed={self.options.split_seed}")

        def rest() -> TaskOutput:
            out = finish()
            out.counts.update(extra)
            return out

        return rest

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        return self.staged(model, seed=seed)()
