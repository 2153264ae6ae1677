"""Generated probing tasks (Ettinger, Elgohary & Resnik 2016), all drawn from one seeded structure pool.

Each task has one or more probe choices (nouns, or noun:verb pairs); each choice gets its own
balanced minimal-pair data set (``n_train`` / ``n_test`` items) and its own classifiers, and the
headline accuracy averages the choices, as the paper recommends.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ...data.registry import DataContext
from ...errors import SpecError
from ...training.device import task_device
from ..base import Task, TaskMetadata, TaskOutput
from ..registry import register_task
from . import builders
from .builders import ProbeDataset, ProbeItem, ProbeSpec
from .classifiers import ClassifierSettings
from .evaluation import ProbeProblem, ProbeSplit, evaluate_problems, parse_classifiers
from .grammar import StructurePool

SUITE = "probing"
REFERENCE = ("Ettinger, Elgohary & Resnik (2016), Probing for semantic evidence of composition by means of "
             "simple classification tasks, RepEval")
SUBSETS = ("logreg", "mlp", "control-gaussian", "control-random-probe")


def _split(items: list[ProbeItem]) -> ProbeSplit:
    return ProbeSplit(texts=[i.text for i in items], probes=[i.probes for i in items],
                      labels=np.array([i.label for i in items], dtype=bool),
                      units=np.array([i.pair for i in items]))


class GeneratedProbeTask(Task):
    """Shared machinery: build the data sets in ``load``, evaluate them with the 2016 setup."""

    main_classifier = "logreg"

    def _setup(self, n_train: int, n_test: int, seed: int, classifiers: str, mlp_max_iter: int,
               mlp_early_stopping: bool, mlp_tol: float = 1e-4, mlp_n_iter_no_change: int = 10,
               trainer: str = "torch") -> None:
        if n_train < 10 or n_test < 10:
            raise SpecError(f"{self.name}: n_train and n_test must be at least 10 (got {n_train}, {n_test})")
        self.classifiers = parse_classifiers(classifiers, self.main_classifier)
        self.settings = ClassifierSettings(mlp_max_iter=mlp_max_iter, mlp_early_stopping=mlp_early_stopping,
                                           mlp_tol=mlp_tol, mlp_n_iter_no_change=mlp_n_iter_no_change, trainer=trainer)
        self.pool = StructurePool(seed)
        self.datasets: list[ProbeDataset] | None = None

    def probe_specs(self) -> list[ProbeSpec]:
        raise NotImplementedError

    def load(self, data: DataContext) -> None:
        self.datasets = [builders.build_dataset(spec, self.pool, self.params["n_train"], self.params["n_test"])
                         for spec in self.probe_specs()]

    def _require(self) -> list[ProbeDataset]:
        if self.datasets is None:
            raise RuntimeError(f"{self.name}: call load() before texts() or evaluate()")
        return self.datasets

    def texts(self) -> list[str]:
        return [i.text for d in self._require() for i in d.train + d.test]

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        datasets = self._require()
        problems = [ProbeProblem(d.choice, _split(d.train), _split(d.test)) for d in datasets]
        out = evaluate_problems(model, problems, seed=seed, classifiers=self.classifiers,
                                main=self.main_classifier, settings=replace(self.settings, device=task_device(self)),
                                probe_features=False,
                                probe_vocab=[])
        out.counts["generator"] = {"pool_seed": self.pool.seed, **{
            d.choice: d.counts for d in datasets}}
        return out


def _metadata(name: str, description: str) -> TaskMetadata:
    return TaskMetadata(name=name, suite=SUITE, description=description, main_metric="accuracy",
                        main_subset="logreg", subsets=SUBSETS, reference=REFERENCE)


class _WordProbeTask(GeneratedProbeTask):
    """A probe asked once per chosen noun X (``words=a+b+c``); subclasses name the builder."""

    @staticmethod
    def build(word: str) -> ProbeSpec:
        raise NotImplementedError

    def __init__(self, words: str = "school+professor+dog", n_train: int = 1000, n_test: int = 500,
                 seed: int = 0, classifiers: str = "logreg+mlp", mlp_max_iter: int = 700,
                 mlp_early_stopping: bool = False, mlp_tol: float = 1e-4, mlp_n_iter_no_change: int = 10,
                 trainer: str = "torch"):
        super().__init__(words=words, n_train=n_train, n_test=n_test, seed=seed, classifiers=classifiers,
                         mlp_max_iter=mlp_max_iter, mlp_early_stopping=mlp_early_stopping, mlp_tol=mlp_tol,
                         mlp_n_iter_no_change=mlp_n_iter_no_change, trainer=trainer)
        self.words = builders.parse_words(words)
        self._setup(n_train, n_test, seed, classifiers, mlp_max_iter, mlp_early_stopping, mlp_tol,
                    mlp_n_iter_no_change, trainer)

    def probe_specs(self) -> list[ProbeSpec]:
        return [self.build(w) for w in self.words]


@register_task
class ProbeHasX(_WordProbeTask):
    metadata = _metadata("probe-has-x", "lexical sanity probe: does the sentence contain noun X")
    build = staticmethod(builders.has_x)


@register_task
class ProbeHasHuman(GeneratedProbeTask):
    metadata = _metadata("probe-has-human", "category probe: does the sentence contain a noun of a category "
                         "(human by default), with the test set's category nouns unseen in training")

    def __init__(self, category: str = "human", n_heldout: int = 4, n_train: int = 1000, n_test: int = 500,
                 seed: int = 0, classifiers: str = "logreg+mlp", mlp_max_iter: int = 700,
                 mlp_early_stopping: bool = False, mlp_tol: float = 1e-4, mlp_n_iter_no_change: int = 10,
                 trainer: str = "torch"):
        super().__init__(category=category, n_heldout=n_heldout, n_train=n_train, n_test=n_test, seed=seed,
                         classifiers=classifiers, mlp_max_iter=mlp_max_iter,
                         mlp_early_stopping=mlp_early_stopping, mlp_tol=mlp_tol,
                         mlp_n_iter_no_change=mlp_n_iter_no_change, trainer=trainer)
        self._setup(n_train, n_test, seed, classifiers, mlp_max_iter, mlp_early_stopping, mlp_tol,
                    mlp_n_iter_no_change, trainer)
        self.category = category
        self.heldout = builders.heldout_nouns(category, n_heldout, seed)

    def probe_specs(self) -> list[ProbeSpec]:
        return [builders.has_category(self.category, self.heldout)]

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        out = super().evaluate(model, seed=seed)
        out.counts["heldout_nouns"] = list(self.heldout)
        return out


@register_task
class ProbeXAsAgent(_WordProbeTask):
    metadata = _metadata("probe-x-as-agent", "semantic-role probe: is X the agent of some event (negatives: X "
                         "only a patient, same words)")
    build = staticmethod(builders.x_as_agent)


_PAIRS = "professor:recommend+school:hire+dog:follow"


@register_task
class ProbeAgentOfVerb(GeneratedProbeTask):
    metadata = _metadata("probe-agent-of-verb", "semantic-role probe: is noun N the agent of verb V (negatives "
                         "hold N and V in other relations, same words)")

    def __init__(self, pairs: str = _PAIRS, n_train: int = 1000, n_test: int = 500, seed: int = 0,
                 classifiers: str = "logreg+mlp", mlp_max_iter: int = 700, mlp_early_stopping: bool = False,
                 mlp_tol: float = 1e-4, mlp_n_iter_no_change: int = 10, trainer: str = "torch"):
        super().__init__(pairs=pairs, n_train=n_train, n_test=n_test, seed=seed, classifiers=classifiers,
                         mlp_max_iter=mlp_max_iter, mlp_early_stopping=mlp_early_stopping, mlp_tol=mlp_tol,
                         mlp_n_iter_no_change=mlp_n_iter_no_change, trainer=trainer)
        self.pairs = builders.parse_pairs(pairs)
        self._setup(n_train, n_test, seed, classifiers, mlp_max_iter, mlp_early_stopping, mlp_tol,
                    mlp_n_iter_no_change, trainer)

    def probe_specs(self) -> list[ProbeSpec]:
        return [builders.agent_of_verb(n, v) for n, v in self.pairs]


@register_task
class ProbeNegationScope(GeneratedProbeTask):
    metadata = _metadata("probe-negation-scope", "negation-scope probe: does N perform V (agent of V, V not "
                         "negated); every sentence has N as V's agent and one negation, placed on V or elsewhere")

    def __init__(self, pairs: str = _PAIRS, role_negatives: float = 0.0, n_train: int = 1000, n_test: int = 500,
                 seed: int = 0, classifiers: str = "logreg+mlp", mlp_max_iter: int = 700,
                 mlp_early_stopping: bool = False, mlp_tol: float = 1e-4, mlp_n_iter_no_change: int = 10,
                 trainer: str = "torch"):
        super().__init__(pairs=pairs, role_negatives=role_negatives, n_train=n_train, n_test=n_test, seed=seed,
                         classifiers=classifiers, mlp_max_iter=mlp_max_iter,
                         mlp_early_stopping=mlp_early_stopping, mlp_tol=mlp_tol,
                         mlp_n_iter_no_change=mlp_n_iter_no_change, trainer=trainer)
        self.pairs = builders.parse_pairs(pairs)
        self.role_negatives = role_negatives
        self._setup(n_train, n_test, seed, classifiers, mlp_max_iter, mlp_early_stopping, mlp_tol,
                    mlp_n_iter_no_change, trainer)

    def probe_specs(self) -> list[ProbeSpec]:
        return [builders.negation_scope(n, v, self.role_negatives) for n, v in self.pairs]
