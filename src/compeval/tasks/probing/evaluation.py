"""Train and test probing classifiers on one model's sentence vectors; accuracy with 95% intervals.

Bootstrap units are minimal pairs for generated data (a pair's members are not independent), items for 2018."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

import numpy as np
from pydantic import field_validator

from ...errors import DataError, SpecError
from ...metrics.bootstrap import DEFAULT_RESAMPLES, mean_ci
from ...results.schema import Score
from ...training.settings import AdamSettings, LBFGSSettings, Trainer, trainer_record
from ..base import TaskOutput
from ..options import TaskOptions, domain_check
from ..scoring import embed
from .classifiers import CLASSIFIERS, FitRequest, fit_many, gaussian_vectors, one_hots, random_one_hots
from ... import seeds
from ...lazy import lazy_module

pd = lazy_module("pandas")

CONTROL_RANDOM_PROBE = "control-random-probe"
CONTROL_GAUSSIAN = "control-gaussian"


@dataclass
class ProbeSplit:
    texts: list[str]
    probes: list[tuple[str, ...]]
    labels: np.ndarray  # bool
    units: np.ndarray  # bootstrap unit of each item (pair id or item index)


@dataclass
class ProbeProblem:
    choice: str
    train: ProbeSplit
    test: ProbeSplit
    extra: dict[str, list[Any]] = field(default_factory=dict)  # per test item, copied into predictions


def parse_classifiers(text: str, main: str) -> list[str]:
    names = [c.strip() for c in text.split("+") if c.strip()]
    unknown = [c for c in names if c not in CLASSIFIERS]
    if unknown or not names:
        raise SpecError(f"classifiers={text!r}: choose from {', '.join(CLASSIFIERS)} joined by '+'")
    if main not in names:
        raise SpecError(f"classifiers={text!r} must include {main!r}, the task's main classifier and the one "
                        "its controls use")
    return names


class ClassifierOptions(TaskOptions):
    """Classifier options every probing task shares; ``classifiers`` must include ``main_classifier``, which
    the headline and controls use. Trainer settings are named ``mlp_<setting>`` and ``logreg_<setting>``."""

    main_classifier: ClassVar[str] = "logreg"

    classifiers: str = "logreg+mlp"  # joined by '+'
    #: The 2018 paper's 700 epochs (Ettinger et al. 2018: scikit-learn's ``MLPClassifier``, ``max_iter=700``);
    #: every other setting is scikit-learn's default, as theirs was.
    mlp: AdamSettings = AdamSettings(max_iter=700)
    logreg: LBFGSSettings = LBFGSSettings()
    trainer: Trainer = "torch"  # torch: batched heads on the run's device

    @field_validator("classifiers")
    @classmethod
    def known_classifiers(cls, value: str) -> str:
        return domain_check(lambda text: parse_classifiers(text, cls.main_classifier))(value)

    def classifier_names(self) -> list[str]:
        return parse_classifiers(self.classifiers, self.main_classifier)


def accuracy_score(subset: str, correct: np.ndarray, units: np.ndarray, seed: int, **details) -> Score:
    """Accuracy with a percentile bootstrap interval over units (each unit's items resampled together)."""
    correct = np.asarray(correct, dtype=np.float64)
    _, inverse, sizes = np.unique(units, return_inverse=True, return_counts=True)
    per_unit = np.bincount(inverse, weights=correct) / sizes
    low, high = mean_ci(per_unit, seed=seed) if len(per_unit) > 1 else (None, None)
    return Score(subset=subset, metric="accuracy", value=float(correct.mean()) if len(correct) else None,
                 ci_low=low, ci_high=high, n=int(len(correct)),
                 details={"resamples": DEFAULT_RESAMPLES, "bootstrap_seed": seed,
                          "bootstrap_units": int(len(per_unit)), **details})


def staged_problems(model: Any, problems: list[ProbeProblem], *, seed: int, options: ClassifierOptions,
                      device: str, probe_features: bool, probe_vocab: list[str]) -> Callable[[], TaskOutput]:
    """The model's part now (the vectors of every problem's sentences); returns the rest, which fits every
    classifier and control per problem on ``device`` and scores overall and per problem. That call reads no
    model and only its own random streams, so the runner may run it beside another job's (``Task.staged``)."""
    all_texts = [t for p in problems for t in p.train.texts + p.test.texts]
    matrix, row = embed(model, all_texts)
    matrix = np.asarray(matrix, dtype=np.float32)
    return lambda: _fit_and_score(matrix, row, problems, seed=seed, options=options, device=device,
                                  probe_features=probe_features, probe_vocab=probe_vocab)


def _fit_and_score(matrix: np.ndarray, row: dict[str, int], problems: list[ProbeProblem], *, seed: int,
                   options: ClassifierOptions, device: str, probe_features: bool, probe_vocab: list[str]
                   ) -> TaskOutput:
    from ...training.logreg import logreg_solver_record  # torch only when training: discovery stays cheap

    classifiers, main = options.classifier_names(), options.main_classifier
    rng = seeds.rng(seed, "probing-controls")  # the Gaussian sentences and the random probe words
    gaussian = gaussian_vectors(list(row), matrix.shape[1], rng)

    def sentence_features(split: ProbeSplit) -> np.ndarray:
        return matrix[np.fromiter((row[t] for t in split.texts), dtype=np.int64, count=len(split.texts))]

    def probe_block(split: ProbeSplit) -> np.ndarray:
        return one_hots(split.probes, probe_vocab) if probe_features else np.zeros((len(split.texts), 0))

    subsets = [*classifiers, CONTROL_GAUSSIAN] + ([CONTROL_RANDOM_PROBE] if probe_features else [])
    correct: dict[str, list[np.ndarray]] = {s: [] for s in subsets}
    fitted: dict[str, dict] = {}
    frames, requests = [], []
    for k, prob in enumerate(problems):
        tr_sent, te_sent = sentence_features(prob.train), sentence_features(prob.test)
        tr_probe, te_probe = probe_block(prob.train), probe_block(prob.test)
        inputs = {c: (np.hstack([tr_sent, tr_probe]), np.hstack([te_sent, te_probe]), c) for c in classifiers}
        inputs[CONTROL_GAUSSIAN] = (
            np.hstack([np.stack([gaussian[t] for t in prob.train.texts]), tr_probe]),
            np.hstack([np.stack([gaussian[t] for t in prob.test.texts]), te_probe]),
            main,
        )
        if probe_features:
            width = max(len(p) for p in prob.train.probes)
            inputs[CONTROL_RANDOM_PROBE] = (
                np.hstack([tr_sent, random_one_hots(len(tr_sent), width, len(probe_vocab), rng)]),
                np.hstack([te_sent, random_one_hots(len(te_sent), width, len(probe_vocab), rng)]),
                main,
            )
        frames.append(pd.DataFrame({"choice": prob.choice, "text": prob.test.texts,
                                    "probes": [" ".join(p) for p in prob.test.probes],
                                    "label": prob.test.labels, "unit": prob.test.units, **prob.extra}))
        head_seed = seeds.derive(seed, "probing-head", k)  # each problem's heads (all its classifiers)
        requests += [(k, subset, FitRequest(f"{subset}/{prob.choice}", clf, x_tr, prob.train.labels, x_te, head_seed))
                     for subset, (x_tr, x_te, clf) in inputs.items()]
    # every classifier of every problem in one call: the torch trainer batches the heads of one shape
    results = fit_many([r for _, _, r in requests], mlp=options.mlp, logreg=options.logreg, trainer=options.trainer,
                       device=device)
    for (k, subset, req), (pred, info) in zip(requests, results):
        prob = problems[k]
        correct[subset].append(pred == prob.test.labels)
        fitted.setdefault(subset, {})[prob.choice] = {"classifier": req.classifier, **info}
        frames[k][f"pred_{subset}"] = pred

    scores = problem_scores(problems, correct, classifiers, main, seed, probe_features)
    predictions = pd.concat(frames, ignore_index=True)
    counts = {
        "choices": [p.choice for p in problems],
        "n_train": {p.choice: len(p.train.texts) for p in problems},
        "n_test": {p.choice: len(p.test.texts) for p in problems},
        "train_positive_share": {p.choice: float(np.mean(p.train.labels)) for p in problems},
        "test_positive_share": {p.choice: float(np.mean(p.test.labels)) for p in problems},
        "unique_sentences": len(row),
        "embedding_dim": int(matrix.shape[1]),
        "fitted": fitted,
        "classifier_seed": seed,
        # the trainer's settings are in the task's params; here what the run chose: device and arithmetic
        "trainer": {**trainer_record(device, options.trainer, named=False),
                    "logreg": logreg_solver_record(options.trainer, device)},
    }
    return TaskOutput(scores=scores, n_items=int(len(predictions)), predictions=predictions, counts=counts)


def score_predictions(problems: list[ProbeProblem], predictions: pd.DataFrame, *, seed: int,
                      options: ClassifierOptions, probe_features: bool) -> list[Score]:
    """Recomputed from each test item's ``pred_<subset>`` against the loaded ``problems``' gold labels
    by ``problem_scores``; the predictions' choices, texts and labels must be the problems' own."""
    classifiers, main = options.classifier_names(), options.main_classifier
    subsets = [*classifiers, CONTROL_GAUSSIAN] + ([CONTROL_RANDOM_PROBE] if probe_features else [])
    correct: dict[str, list[np.ndarray]] = {s: [] for s in subsets}
    for prob in problems:
        rows = predictions[predictions["choice"].astype(str) == prob.choice] if "choice" in predictions else predictions
        if (len(rows) != len(prob.test.texts) or rows["text"].astype(str).tolist() != list(prob.test.texts)
                or rows["label"].astype(bool).tolist() != prob.test.labels.astype(bool).tolist()):
            raise DataError(f"probe {prob.choice}: the predictions' test items or labels are not the data's")
        for subset in subsets:
            column = f"pred_{subset}"
            if column not in rows:
                raise DataError(f"probe {prob.choice}: the predictions have no column {column}")
            correct[subset].append(rows[column].astype(bool).to_numpy() == prob.test.labels.astype(bool))
    return problem_scores(problems, correct, classifiers, main, seed, probe_features)


def problem_scores(problems: list[ProbeProblem], correct: dict[str, list[np.ndarray]], classifiers: list[str],
                   main: str, seed: int, probe_features: bool) -> list[Score]:
    """Accuracy per classifier and control from each test item's correctness, for ``staged_problems`` and
    ``score_predictions`` alike."""
    scores: list[Score] = []
    units = np.concatenate([[f"{p.choice}/{u}" for u in p.test.units] for p in problems])
    for subset in correct:
        clf = subset if subset in classifiers else main
        per_choice = {p.choice: float(c.mean()) for p, c in zip(problems, correct[subset])}
        scores.append(accuracy_score(subset, np.concatenate(correct[subset]), units, seed, classifier=clf,
                                     per_choice=per_choice, choices=len(problems)))
        if len(problems) > 1:
            for p, c in zip(problems, correct[subset]):
                scores.append(accuracy_score(f"{subset}/{p.choice}", c, p.test.units, seed, classifier=clf))
    if not probe_features:
        scores.append(Score(subset=CONTROL_RANDOM_PROBE, metric="accuracy", value=None, n=0, details={
            "reason": "not applicable: one classifier per probe choice (2016 setup), so the probe is not a "
                      "feature to randomise; pooling the choices does not help either, since each choice's "
                      "sentences contain its probe words and so reveal the question"}))
    return scores
