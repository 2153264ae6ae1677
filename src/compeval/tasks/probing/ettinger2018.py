"""The Ettinger et al. (COLING 2018) probing tasks sr, neg, cont1, cont2, order, read from their files.

In ``neg``, TRUE means the probe verb is *not* negated (the negation sits on the other verb)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar

import numpy as np

from ... import textfile
from ...data.registry import DataContext
from ...errors import MalformedDataError
from ...results.schema import Score
from ...training.settings import MLP_HEADS_VERSION
from ..base import EvalCost, Task, TaskMetadata, TaskOutput
from ..registry import register_task
from .evaluation import ClassifierOptions, ProbeProblem, ProbeSplit, staged_problems, score_predictions
from ...lazy import lazy_module

pd = lazy_module("pandas")

SOURCE = "ettinger2018_compeval"
REFERENCE = ("Ettinger, Elgohary, Phillips & Resnik (2018), Assessing Composition in Sentence Vector "
             "Representations, COLING")


@dataclass(frozen=True)
class EttingerItem:
    label: bool
    sent_id: str
    text: str
    probes: tuple[str, ...]


def read_vocab(path: Path) -> list[str]:
    words = [w.strip() for w in textfile.read_text(path).splitlines() if w.strip()]
    if not words:
        raise MalformedDataError(path, 1, "the probe vocabulary is empty")
    if len(set(words)) != len(words):
        raise MalformedDataError(path, 1, "the probe vocabulary lists a word twice")
    return words


def read_items(path: Path, n_probes: int, vocab: list[str]) -> list[EttingerItem]:
    """Parse one train/test file; any line that does not fit the format is an error naming the line."""
    known = set(vocab)
    items = []
    with textfile.open_text(path) as f:
        for line_no, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            fields = line.split("\t")
            if len(fields) != 3 + n_probes:
                raise MalformedDataError(path, line_no, f"expected {3 + n_probes} tab-separated fields (LABEL, "
                                         f"id, sentence, {n_probes} probe word(s)), found {len(fields)}")
            label, sent_id, text, *probes = (x.strip() for x in fields)
            if label not in ("TRUE", "FALSE"):
                raise MalformedDataError(path, line_no, f"label {label!r} is neither TRUE nor FALSE")
            if not text:
                raise MalformedDataError(path, line_no, "empty sentence")
            unknown = [p for p in probes if p not in known]
            if unknown:
                raise MalformedDataError(path, line_no, f"probe word(s) {unknown} not in vocab.txt")
            items.append(EttingerItem(label == "TRUE", sent_id, text, tuple(probes)))
    if not items:
        raise MalformedDataError(path, 1, "no items")
    return items


class Ettinger2018Options(ClassifierOptions):
    main_classifier: ClassVar[str] = "mlp"  # the 2018 classifier

    classifiers: str = "mlp+logreg"


class Ettinger2018Task(Task):
    conformance_options = "classifiers=mlp,mlp_max_iter=5"
    directory: ClassVar[str]
    n_probes: ClassVar[int]
    Options = Ettinger2018Options
    options: Ettinger2018Options

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.train: list[EttingerItem] | None = None
        self.test: list[EttingerItem] = []
        self.vocab: list[str] = []

    def load(self, data: DataContext) -> None:
        self.vocab = read_vocab(data.path(SOURCE, "vocab.txt"))
        self.train = read_items(data.path(SOURCE, f"{self.directory}/train.txt"), self.n_probes, self.vocab)
        self.test = read_items(data.path(SOURCE, f"{self.directory}/test.txt"), self.n_probes, self.vocab)

    def _require(self) -> tuple[list[EttingerItem], list[EttingerItem]]:
        if self.train is None:
            raise RuntimeError(f"{self.name}: call load() before texts() or evaluate()")
        return self.train, self.test

    def texts(self) -> list[str]:
        train, test = self._require()
        return [i.text for i in train + test]

    def _problem(self) -> ProbeProblem:
        train, test = self._require()

        def split(items: list[EttingerItem]) -> ProbeSplit:
            return ProbeSplit([i.text for i in items], [i.probes for i in items],
                              np.array([i.label for i in items], dtype=bool), np.arange(len(items)))

        return ProbeProblem(self.directory, split(train), split(test), extra={"sent_id": [i.sent_id for i in test]})

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """Accuracies from the predicted labels of the test items (the heads are not refitted)."""
        return score_predictions([self._problem()], predictions, seed=seed, options=self.options,
                                 probe_features=True)

    def staged(self, model: Any, *, seed: int) -> Callable[[], TaskOutput]:
        return staged_problems(model, [self._problem()], seed=seed, options=self.options,
                                 device=self.context.torch_device(), probe_features=True, probe_vocab=self.vocab)

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        return self.staged(model, seed=seed)()


def _define(directory: str, n_probes: int, description: str, eval_cost: EvalCost) -> type:
    metadata = TaskMetadata(
        name=f"ettinger2018-{directory}", suite="probing", description=description, data_sources=(SOURCE,),
        main_metric="accuracy", main_subset="mlp", version=MLP_HEADS_VERSION,
        subsets=("mlp", "logreg", "control-gaussian", "control-random-probe"), reference=REFERENCE,
    )
    cls = type(f"Ettinger2018{directory.capitalize()}", (Ettinger2018Task,),
               {"metadata": metadata, "directory": directory, "n_probes": n_probes, "__module__": __name__,
                "__doc__": description, "eval_cost": eval_cost})
    return register_task(cls)


# eval_cost: seconds of each job at the default 700 epochs in the default run (one thread each, jobs side by side:
# glove-6b-50d's and all-MiniLM-L6-v2's; docs/architecture.md, "CPU threads")
Ettinger2018Sr = _define("sr", 2, "2018 semantic role: is the probe noun the agent of the probe verb",
                         EvalCost(at_50=10.2, at_384=39.1))
Ettinger2018Neg = _define("neg", 1, "2018 negation: TRUE when the probe verb is NOT negated (the other verb is)",
                          EvalCost(at_50=16.7, at_384=46.4))
Ettinger2018Cont1 = _define("cont1", 1, "2018 content: does the sentence contain the probe verb",
                            EvalCost(at_50=25.8, at_384=77))
Ettinger2018Cont2 = _define("cont2", 2, "2018 content: does it contain both the probe noun and the probe verb",
                            EvalCost(at_50=37.3, at_384=49.5))
Ettinger2018Order = _define("order", 2, "2018 order: does the noun's first mention precede the verb's",
                            EvalCost(at_50=26.5, at_384=41.3))
