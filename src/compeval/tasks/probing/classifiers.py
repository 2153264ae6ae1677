"""The probing classifiers (``logreg``, ``mlp``) and the two controls (docs/probing.md).

Each logreg fit is solved to its minimum: at scikit-learn's default tolerance the chosen C depends on where
its solver stopped."""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ...training.settings import AdamSettings, LBFGSSettings, Trainer

CLASSIFIERS = ("logreg", "mlp")
LOGREG_CS = tuple(np.logspace(-3, 3, 7))
LOGREG_FOLDS = 5
#: ``LogisticRegressionCV``'s own tolerance with a 2,000-iteration cap: the reference the benchmarks compare against.
SKLEARN_DEFAULT_LOGREG = LBFGSSettings(tol=1e-4, max_iter=2000)


@dataclass
class FitRequest:
    """One classifier to train: ``name`` identifies it in errors (subset/choice)."""

    name: str
    classifier: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    seed: int


def fit_many(requests: list[FitRequest], *, mlp: AdamSettings, logreg: LBFGSSettings, trainer: Trainer = "torch",
             device: str = "cpu") -> list[tuple[np.ndarray, dict]]:
    """(predictions, fitted settings) per request; the torch trainer batches the MLPs of one shape on ``device``."""
    for r in requests:
        if r.classifier not in CLASSIFIERS:
            raise ValueError(f"unknown classifier {r.classifier!r}; known: {', '.join(CLASSIFIERS)}")
        if len(np.unique(np.asarray(r.y_train, dtype=bool))) < 2:
            raise ValueError("the training labels have a single class; a probe needs both")
    if trainer == "sklearn":
        return [fit_predict(r.classifier, r.x_train, r.y_train, r.x_test, seed=r.seed, mlp=mlp, logreg=logreg)
                for r in requests]
    from sklearn.model_selection import StratifiedKFold

    from ...training.logreg import LogRegProblem, logreg_cv_many
    from ...training.mlp import MLPJob, fit_mlps

    out: list[tuple[np.ndarray, dict] | None] = [None] * len(requests)
    mlps = [k for k, r in enumerate(requests) if r.classifier == "mlp"]
    fits = fit_mlps([MLPJob(requests[k].name, requests[k].x_train, np.asarray(requests[k].y_train, dtype=bool),
                            requests[k].x_test, requests[k].seed) for k in mlps],
                    settings=mlp, device=device)
    for k, fit in zip(mlps, fits):
        out[k] = (fit.predictions.astype(bool), {"n_iter": fit.n_iter})
    logregs = [k for k, r in enumerate(requests) if r.classifier == "logreg"]
    problems = []
    for k in logregs:
        r = requests[k]
        y = np.asarray(r.y_train, dtype=bool)
        folds = list(StratifiedKFold(LOGREG_FOLDS, shuffle=True, random_state=r.seed).split(r.x_train, y))
        problems.append(LogRegProblem(r.x_train, y, r.x_test, folds, f"logistic regression {r.name!r} (seed {r.seed})"))
    for k, fit in zip(logregs, logreg_cv_many(problems, Cs=LOGREG_CS, settings=logreg, device=device)):
        out[k] = (fit.predictions.astype(bool), {"C": fit.C, "unconverged": fit.unconverged})
    return out  # type: ignore[return-value]


def fit_predict(name: str, x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, *, seed: int,
                mlp: AdamSettings, logreg: LBFGSSettings) -> tuple[np.ndarray, dict]:
    """Train classifier ``name`` with scikit-learn; returns (test predictions, fitted settings)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.model_selection import StratifiedKFold
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    y_train = np.asarray(y_train, dtype=bool)
    if len(np.unique(y_train)) < 2:
        raise ValueError("the training labels have a single class; a probe needs both")
    if name == "logreg":
        folds = StratifiedKFold(LOGREG_FOLDS, shuffle=True, random_state=seed)
        model = make_pipeline(
            StandardScaler(),
            LogisticRegressionCV(Cs=list(LOGREG_CS), cv=folds, l1_ratios=(0.0,), scoring="accuracy",
                                 tol=logreg.tol, max_iter=logreg.max_iter,
                                 use_legacy_attributes=False),
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(x_train, y_train)
        # fits stopped by max_iter (scikit-learn counts the fold fits, not the refit)
        unconverged = int((np.asarray(model[-1].n_iter_) >= logreg.max_iter).sum())
        return model.predict(x_test).astype(bool), {"C": float(model[-1].C_), "unconverged": unconverged}
    if name == "mlp":
        model = MLPClassifier(hidden_layer_sizes=(x_train.shape[1],), activation="relu", solver="adam",
                              max_iter=mlp.max_iter, early_stopping=mlp.early_stopping, tol=mlp.tol,
                              n_iter_no_change=mlp.n_iter_no_change, learning_rate_init=mlp.lr, alpha=mlp.alpha,
                              batch_size=min(mlp.batch_size, len(x_train)),
                              validation_fraction=mlp.validation_fraction, random_state=seed)
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
