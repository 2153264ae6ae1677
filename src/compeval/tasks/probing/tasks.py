"""Generated probing tasks (Ettinger, Elgohary & Resnik 2016), all drawn from one seeded structure pool."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from ...data.registry import DataContext
from ...results.schema import Score
from ...training.settings import MLP_HEADS_VERSION
from ..base import EvalCost, Task, TaskMetadata, TaskOutput
from ..options import domain_check
from ..registry import register_task
from . import builders
from .builders import ProbeDataset, ProbeItem, ProbeSpec
from .evaluation import ClassifierOptions, ProbeProblem, ProbeSplit, staged_problems, score_predictions
from .grammar import ASPECT_SETS, GrammarConfig, StructurePool
from .lexicon import CATEGORIES
from .published import HAS_HUMAN_PUBLISHED, HAS_X_PUBLISHED, X_AS_AGENT_PUBLISHED
from ...lazy import lazy_module

pd = lazy_module("pandas")

SUITE = "probing"
REFERENCE = ("Ettinger, Elgohary & Resnik (2016), Probing for semantic evidence of composition by means of "
             "simple classification tasks, RepEval")
SUBSETS = ("logreg", "mlp", "control-gaussian", "control-random-probe")


def _split(items: list[ProbeItem]) -> ProbeSplit:
    return ProbeSplit(texts=[i.text for i in items], probes=[i.probes for i in items],
                      labels=np.array([i.label for i in items], dtype=bool),
                      units=np.array([i.pair for i in items]))


class GeneratedProbeOptions(ClassifierOptions):
    """The options every generated probing task shares (data sizes, generator seed, grammar, classifiers).

    Grammar options default to ``grammar.GrammarConfig``'s own values."""

    n_train: int = Field(1000, ge=10)  # items per probe choice, rounded down to an even number
    # test items per probe choice
    n_test: int = Field(500, ge=10)
    generator_seed: int = Field(0, ge=0)  # the structure pool and held-out nouns (the run seed drives the rest)
    # grammar: share of transitive clauses said in the passive (0 = active only, 1 = every transitive one passive)
    p_passive: float = Field(GrammarConfig.p_passive, ge=0, le=1)
    p_relative: float = Field(GrammarConfig.p_relative, ge=0, le=1)  # relative clause per main participant (0 = none)
    p_negation: float = Field(GrammarConfig.p_negation, ge=0, le=1)  # negation per clause (0 = none drawn)
    p_transitive_main: float = Field(GrammarConfig.p_transitive_main, ge=0, le=1)  # main clause has a patient
    aspects: Literal[ASPECT_SETS] = "auxiliary"  # type: ignore[valid-type]  # grammar.ASPECT_SETS

    def grammar(self) -> GrammarConfig:
        return GrammarConfig(p_passive=self.p_passive, p_relative=self.p_relative, p_negation=self.p_negation,
                             p_transitive_main=self.p_transitive_main, aspects=self.aspects)


#: The generated probes' smallest sizes (their ``conformance_options``): the task's own words or pairs are added.
_CHEAP = "n_train=40,n_test=20,classifiers=logreg+mlp,mlp_max_iter=20,generator_seed=3"


class GeneratedProbeTask(Task):
    """Shared machinery: build the data sets in ``load``, evaluate them with the 2016 setup."""

    Options = GeneratedProbeOptions
    options: GeneratedProbeOptions

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.pool = StructurePool(self.options.generator_seed, self.options.grammar())
        self.datasets: list[ProbeDataset] | None = None

    def probe_specs(self) -> list[ProbeSpec]:
        raise NotImplementedError

    def load(self, data: DataContext) -> None:
        self.datasets = [builders.build_dataset(spec, self.pool, self.options.n_train, self.options.n_test)
                         for spec in self.probe_specs()]

    def _require(self) -> list[ProbeDataset]:
        if self.datasets is None:
            raise RuntimeError(f"{self.name}: call load() before texts() or evaluate()")
        return self.datasets

    def texts(self) -> list[str]:
        return [i.text for d in self._require() for i in d.train + d.test]

    def _problems(self) -> list[ProbeProblem]:
        return [ProbeProblem(d.choice, _split(d.train), _split(d.test)) for d in self._require()]

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """Accuracies from the predicted labels of the test items (the heads are not refitted)."""
        return score_predictions(self._problems(), predictions, seed=seed, options=self.options,
                                 probe_features=False)

    def staged(self, model: Any, *, seed: int) -> Callable[[], TaskOutput]:
        datasets = self._require()
        finish = staged_problems(model, self._problems(), seed=seed, options=self.options,
                                   device=self.context.torch_device(), probe_features=False, probe_vocab=[])
        generator = {"pool_seed": self.pool.seed, "grammar": _grammar_record(self.pool.config),
                     **{d.choice: d.counts for d in datasets}}

        def rest() -> TaskOutput:
            out = finish()
            out.counts["generator"] = generator
            return out

        return rest

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        return self.staged(model, seed=seed)()


def _grammar_record(config: GrammarConfig) -> dict:
    return {"p_passive": config.p_passive, "p_relative": config.p_relative, "p_negation": config.p_negation,
            "p_transitive_main": config.p_transitive_main, "aspects": config.aspects,
            "active_aspects": list(config.active_aspects), "passive_aspects": list(config.passive_aspects)}


#: Named settings of ``probe-x-as-agent`` (option ``preset``): option values a preset fixes. An option given
#: with a preset must agree with it.
PRESETS: dict[str, dict[str, Any]] = {
    # Ettinger, Elgohary & Resnik (2016), school-as-agent: one transitive clause, active or passive, no
    # relative clause, no negation, simple verb forms ("the school hired the researcher" / "the researcher
    # was hired by the school"); negatives swap school into the patient role (same words).
    "school-as-agent": {"words": "school", "p_passive": 0.5, "p_relative": 0.0, "p_negation": 0.0,
                        "p_transitive_main": 1.0, "aspects": "simple"},
}


def _metadata(name: str, description: str, published=()) -> TaskMetadata:
    return TaskMetadata(name=name, suite=SUITE, description=description, main_metric="accuracy",
                        main_subset="logreg", subsets=SUBSETS, reference=REFERENCE, published=published,
                        version=MLP_HEADS_VERSION)


class _WordProbeTask(GeneratedProbeTask):
    """A probe asked once per chosen noun X (``words=a+b+c``); subclasses name the builder."""

    @staticmethod
    def build(word: str) -> ProbeSpec:
        raise NotImplementedError

    class Options(GeneratedProbeOptions):
        words: str = "school+professor+dog"  # probe nouns joined by '+'

        @field_validator("words")
        @classmethod
        def known_words(cls, value: str) -> str:
            return domain_check(builders.parse_words)(value)

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.words = builders.parse_words(self.options.words)

    def probe_specs(self) -> list[ProbeSpec]:
        return [self.build(w) for w in self.words]


@register_task
class ProbeHasX(_WordProbeTask):
    conformance_options = f"words=school,{_CHEAP}"
    metadata = _metadata("probe-has-x", "lexical sanity probe: does the sentence contain noun X", HAS_X_PUBLISHED)
    eval_cost = EvalCost(at_50=5.6, at_384=7.1)  # s per job in the default run (ettinger2018.py)
    build = staticmethod(builders.has_x)


@register_task
class ProbeHasHuman(GeneratedProbeTask):
    conformance_options = f"n_heldout=2,{_CHEAP}"
    metadata = _metadata("probe-has-human", "category probe: does the sentence contain a noun of a category "
                         "(human by default), with the test set's category nouns unseen in training", HAS_HUMAN_PUBLISHED)
    eval_cost = EvalCost(at_50=3.8, at_384=2.9)  # s per job in the default run (ettinger2018.py)

    class Options(GeneratedProbeOptions):
        # the category whose nouns make a sentence positive
        category: Literal[CATEGORIES] = "human"
        n_heldout: int = Field(4, ge=1)  # category nouns kept out of training (test positives use only them)

        @model_validator(mode="after")
        def enough_nouns(self):
            domain_check(lambda o: builders.heldout_nouns(o.category, o.n_heldout, o.generator_seed))(self)
            return self

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.category = self.options.category
        self.heldout = builders.heldout_nouns(self.category, self.options.n_heldout, self.options.generator_seed)

    def probe_specs(self) -> list[ProbeSpec]:
        return [builders.has_category(self.category, self.heldout)]

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        out = super().evaluate(model, seed=seed)
        out.counts["heldout_nouns"] = list(self.heldout)
        return out


@register_task
class ProbeXAsAgent(_WordProbeTask):
    conformance_options = f"words=dog,{_CHEAP}"
    metadata = _metadata("probe-x-as-agent", "semantic-role probe: is X the agent of some event (negatives: X "
                         "only a patient, same words)", X_AS_AGENT_PUBLISHED)
    eval_cost = EvalCost(at_50=0.6, at_384=21.3)  # s per job in the default run (ettinger2018.py)
    build = staticmethod(builders.x_as_agent)
    quick = "n_train=200,n_test=100"  # the suite's quick task: 900 texts, heads on 200 items per noun

    class Options(_WordProbeTask.Options):
        preset: Literal[("none", *PRESETS)] = "none"  # type: ignore[valid-type]  # PRESETS: the paper's setting

        @model_validator(mode="before")
        @classmethod
        def apply_preset(cls, values: Any) -> Any:
            if not isinstance(values, dict) or values.get("preset", "none") == "none":
                return values
            name = values["preset"]
            if name not in PRESETS:
                return values  # the Literal names the choices
            fixed = PRESETS[name]
            for key, value in fixed.items():
                if key in values and not _same(values[key], value):
                    raise ValueError(f"preset={name} sets {key}={value}; drop {key}={values[key]} or the preset")
            return {**values, **fixed}


def _same(given: Any, fixed: Any) -> bool:
    """Whether an option value (a Python value or the CLI's string) is the preset's."""
    if isinstance(fixed, float):
        try:
            return float(given) == fixed
        except (TypeError, ValueError):
            return False
    return str(given) == str(fixed)


class PairOptions(GeneratedProbeOptions):
    pairs: str = "professor:recommend+school:hire+dog:follow"  # NOUN:VERB joined by '+'

    @field_validator("pairs")
    @classmethod
    def known_pairs(cls, value: str) -> str:
        return domain_check(builders.parse_pairs)(value)


@register_task
class ProbeAgentOfVerb(GeneratedProbeTask):
    conformance_options = f"pairs=professor:recommend,{_CHEAP}"
    metadata = _metadata("probe-agent-of-verb", "semantic-role probe: is noun N the agent of verb V (negatives "
                         "hold N and V in other relations, same words)")
    eval_cost = EvalCost(at_50=0.5, at_384=27)  # s per job in the default run (ettinger2018.py)

    Options = PairOptions

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.pairs = builders.parse_pairs(self.options.pairs)

    def probe_specs(self) -> list[ProbeSpec]:
        return [builders.agent_of_verb(n, v) for n, v in self.pairs]


@register_task
class ProbeNegationScope(GeneratedProbeTask):
    conformance_options = f"pairs=professor:recommend,role_negatives=0.5,{_CHEAP}"
    metadata = _metadata("probe-negation-scope", "negation-scope probe: does N perform V (agent of V, V not "
                         "negated); every sentence has N as V's agent and one negation, placed on V or elsewhere")
    eval_cost = EvalCost(at_50=0.4, at_384=15.2)  # s per job in the default run (ettinger2018.py)

    class Options(PairOptions):
        role_negatives: float = Field(0.0, ge=0, le=1)  # share of negatives that keep the negation but break the role

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.pairs = builders.parse_pairs(self.options.pairs)
        self.role_negatives = self.options.role_negatives

    def probe_specs(self) -> list[ProbeSpec]:
        return [builders.negation_scope(n, v, self.role_negatives) for n, v in self.pairs]
