"""The probing classifiers and the two controls.

- ``logreg``: L2 logistic regression, C chosen by 5-fold stratified CV over a log grid (the 2016
  setup). Features are standardised first so one C grid suits models whose vectors differ in scale.
  Each fit is solved until the norm of its gradient is ≤ ``logreg_tol`` (1e-8). At scikit-learn's
  default (largest gradient entry ≤ 1e-4) the chosen C still depends on where its solver stopped: on
  7 of the 26 heads of MiniLM's generated probes it differs from scikit-learn's own C at tol 1e-10, which
  the torch trainer matches on all 26 (``benchmarks/trainer_parts.py --reference-tol 1e-10``).
- ``mlp``: the 2018 classifier, scikit-learn's ``MLPClassifier`` setting: one ReLU hidden layer as wide
  as the input, Adam, batches of 200, seeded (the original is not). The paper's 700 iterations with
  scikit-learn's stopping rule (training loss not improved by ``mlp_tol`` for more than
  ``mlp_n_iter_no_change`` epochs) are the defaults. ``mlp_early_stopping=true`` switches on
  scikit-learn's validation-based early stopping; it is not the default because validation accuracy
  often stays flat for the first epochs while the loss still falls, and the network then stops
  untrained (sr: 0.533).
``trainer=torch`` (default) fits them with ``compeval.training``: a probe and its controls as one
batched model, a task's cross-validated logistic regressions as one batched L-BFGS run (problems ×
folds × C), on the run's device. ``trainer=sklearn`` runs scikit-learn's estimators one after another
(same settings).
Controls: the probe one-hots replaced by one-hots of random probe-vocabulary words, and the sentence
vectors replaced by standard Gaussian vectors (one fixed vector per distinct sentence).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import StratifiedKFold
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from ...errors import SpecError

CLASSIFIERS = ("logreg", "mlp")
LOGREG_CS = tuple(np.logspace(-3, 3, 7))
#: ``LogisticRegressionCV``'s own tolerance and the iteration cap this project gave it before the torch
#: trainer: the path the benchmarks compare against.
SKLEARN_DEFAULT_LOGREG = {"logreg_tol": 1e-4, "logreg_max_iter": 2000}


@dataclass(frozen=True)
class ClassifierSettings:
    mlp_max_iter: int = 700
    mlp_early_stopping: bool = False
    logreg_folds: int = 5
    mlp_tol: float = 1e-4
    mlp_n_iter_no_change: int = 10
    logreg_tol: float = 1e-8
    logreg_max_iter: int = 10_000
    trainer: str = "torch"
    device: str = "cpu"

    def __post_init__(self) -> None:
        from ...training.settings import check_positive, check_trainer

        check_positive("mlp_max_iter", self.mlp_max_iter)
        check_positive("mlp_n_iter_no_change", self.mlp_n_iter_no_change)
        check_positive("logreg_tol", self.logreg_tol)
        check_positive("logreg_max_iter", self.logreg_max_iter)
        if not self.mlp_tol >= 0:
            raise SpecError(f"mlp_tol={self.mlp_tol}: must be ≥ 0")
        check_trainer(self.trainer)

    def adam(self):
        from ...training.settings import AdamSettings

        return AdamSettings(max_iter=self.mlp_max_iter, tol=self.mlp_tol, n_iter_no_change=self.mlp_n_iter_no_change,
                            early_stopping=self.mlp_early_stopping)


@dataclass
class FitRequest:
    """One classifier to train: ``name`` identifies it in errors (subset/choice)."""

    name: str
    classifier: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    seed: int


def fit_many(requests: list[FitRequest], settings: ClassifierSettings) -> list[tuple[np.ndarray, dict]]:
    """(predictions, fitted settings) per request. The torch trainer fits every MLP request of one shape
    as one batched model; the scikit-learn trainer fits them one by one."""
    for r in requests:
        if r.classifier not in CLASSIFIERS:
            raise ValueError(f"unknown classifier {r.classifier!r}; known: {', '.join(CLASSIFIERS)}")
        if len(np.unique(np.asarray(r.y_train, dtype=bool))) < 2:
            raise ValueError("the training labels have a single class; a probe needs both")
    if settings.trainer == "sklearn":
        return [fit_predict(r.classifier, r.x_train, r.y_train, r.x_test, seed=r.seed, settings=settings)
                for r in requests]
    from ...training.logreg import LogRegProblem, logreg_cv_many
    from ...training.mlp import MLPJob, fit_mlps

    out: list[tuple[np.ndarray, dict] | None] = [None] * len(requests)
    mlps = [k for k, r in enumerate(requests) if r.classifier == "mlp"]
    fits = fit_mlps([MLPJob(requests[k].name, requests[k].x_train, np.asarray(requests[k].y_train, dtype=bool),
                            requests[k].x_test, requests[k].seed) for k in mlps],
                    settings=settings.adam(), device=settings.device)
    for k, fit in zip(mlps, fits):
        out[k] = (fit.predictions.astype(bool), {"n_iter": fit.n_iter})
    logregs = [k for k, r in enumerate(requests) if r.classifier == "logreg"]
    problems = []
    for k in logregs:
        r = requests[k]
        y = np.asarray(r.y_train, dtype=bool)
        folds = list(StratifiedKFold(settings.logreg_folds, shuffle=True, random_state=r.seed).split(r.x_train, y))
        problems.append(LogRegProblem(r.x_train, y, r.x_test, folds, f"logistic regression {r.name!r} (seed {r.seed})"))
    for k, fit in zip(logregs, logreg_cv_many(problems, Cs=LOGREG_CS, tol=settings.logreg_tol,
                                                max_iter=settings.logreg_max_iter, device=settings.device)):
        out[k] = (fit.predictions.astype(bool), {"C": fit.C})
    return out  # type: ignore[return-value]


def fit_predict(name: str, x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, *, seed: int,
                settings: ClassifierSettings = ClassifierSettings()) -> tuple[np.ndarray, dict]:
    """Train classifier ``name`` and predict the test items; returns (predictions, fitted settings)."""
    y_train = np.asarray(y_train, dtype=bool)
    if len(np.unique(y_train)) < 2:
        raise ValueError("the training labels have a single class; a probe needs both")
    if name == "logreg":
        folds = StratifiedKFold(settings.logreg_folds, shuffle=True, random_state=seed)
        model = make_pipeline(
            StandardScaler(),
            LogisticRegressionCV(Cs=list(LOGREG_CS), cv=folds, l1_ratios=(0.0,), scoring="accuracy",
                                 tol=settings.logreg_tol, max_iter=settings.logreg_max_iter,
                                 use_legacy_attributes=False),
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(x_train, y_train)
        return model.predict(x_test).astype(bool), {"C": float(model[-1].C_)}
    if name == "mlp":
        model = MLPClassifier(hidden_layer_sizes=(x_train.shape[1],), activation="relu",
                              max_iter=settings.mlp_max_iter, early_stopping=settings.mlp_early_stopping,
                              tol=settings.mlp_tol, n_iter_no_change=settings.mlp_n_iter_no_change,
                              random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(x_train, y_train)
        return model.predict(x_test).astype(bool), {"n_iter": int(model.n_iter_)}
    raise ValueError(f"unknown classifier {name!r}; known: {', '.join(CLASSIFIERS)}")


def one_hots(probes: list[tuple[str, ...]], vocab: list[str]) -> np.ndarray:
    """One one-hot block over ``vocab`` per probe position, concatenated (the 2018 feature layout)."""
    index = {w: i for i, w in enumerate(vocab)}
    width = max((len(p) for p in probes), default=0)
    out = np.zeros((len(probes), width * len(vocab)), dtype=np.float32)
    for row, words in enumerate(probes):
        for pos, w in enumerate(words):
            out[row, pos * len(vocab) + index[w]] = 1.0
    return out


def random_one_hots(n: int, width: int, vocab_size: int, rng: np.random.Generator) -> np.ndarray:
    """The random-probe control: each probe position gets a uniformly random vocabulary word."""
    out = np.zeros((n, width * vocab_size), dtype=np.float32)
    for pos in range(width):
        out[np.arange(n), pos * vocab_size + rng.integers(vocab_size, size=n)] = 1.0
    return out


def gaussian_vectors(texts: list[str], dim: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The random-sentence control: one standard Gaussian vector per distinct text."""
    unique = list(dict.fromkeys(texts))
    table = rng.standard_normal((len(unique), dim)).astype(np.float32)
    return dict(zip(unique, table))
