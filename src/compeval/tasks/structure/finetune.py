"""Fine-tuning generalisation: can small regressors learn human similarity from a model's own features,
and does that transfer from ordinary (non) to adversarial (adv) pairs?"""
from __future__ import annotations

import warnings

import numpy as np
from ...lazy import lazy_module

stats = lazy_module("scipy.stats")

from ...metrics.correlation import spearman

# The paper's hidden sizes: roughly tenfold more parameters per added layer.
LAYERS: dict[int, tuple[int, ...]] = {0: (), 1: (10,), 2: (60, 100), 3: (100, 100, 10)}


def n_parameters(n_in: int, hidden: tuple[int, ...]) -> int:
    """Weights plus biases of an MLP with one output."""
    sizes = (n_in, *hidden, 1)
    return int(sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:])))


def pair_features(vectors: np.ndarray, ia: np.ndarray, ib: np.ndarray, train_rows: np.ndarray,
                  n_components: int | None, seed: int) -> np.ndarray:
    """Both sentences' vectors concatenated; with ``n_components``, PCA fitted on the training pairs'
    sentences only (so the test sentences never shape the projection)."""
    if n_components:
        from sklearn.decomposition import PCA

        fit_on = np.unique(np.concatenate([ia[train_rows], ib[train_rows]]))
        pca = PCA(n_components=n_components, random_state=seed).fit(vectors[fit_on])
        vectors = pca.transform(vectors)
    return np.hstack([vectors[ia], vectors[ib]])


def fit_score(x: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray, hidden: tuple[int, ...],
              seed: int) -> float:
    """Spearman on the test pairs of an MLPRegressor (default settings) trained on the training pairs."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPRegressor

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg = MLPRegressor(hidden_layer_sizes=hidden, random_state=seed).fit(x[train], y[train])
    return spearman(reg.predict(x[test]), y[test])


def fit_scores(fits: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]], hidden: tuple[int, ...],
               trainer: str = "torch", device: str = "cpu") -> list[float]:
    """``fit_score`` for many (x, y, train, test, seed) at once: the torch trainer batches regressors of one
    shape (MLPRegressor's defaults, ``AdamSettings``); ``trainer=sklearn`` fits them one by one."""
    if trainer == "sklearn":
        return [fit_score(x, y, tr, te, hidden, seed) for x, y, tr, te, seed in fits]
    from ...training.mlp import MLPJob, fit_mlps
    from ...training.settings import AdamSettings

    jobs = [MLPJob(f"layers={len(hidden)}/seed={seed}", x[tr], y[tr], x[te], seed) for x, y, tr, te, seed in fits]
    out = fit_mlps(jobs, hidden=hidden, classify=False, settings=AdamSettings(), device=device)
    return [spearman(f.predictions, y[te]) for f, (x, y, tr, te, seed) in zip(out, fits)]


def t_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Interval of the mean over repeats (few seeds, so a t interval rather than a bootstrap)."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return float("nan"), float("nan")
    half = stats.t.ppf((1 + level) / 2, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return float(values.mean() - half), float(values.mean() + half)
