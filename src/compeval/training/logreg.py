"""Cross-validated L2 logistic regression as one batched model: folds × C values (and the refits on all
training items) solved together by full-batch L-BFGS, each with its own history and line search.

Same objective and stopping rule as scikit-learn's ``LogisticRegressionCV`` (solver lbfgs): per model
``mean log loss + ‖w‖² / (2 · C · n)`` over its training rows (intercept not penalised), stop when the
largest gradient entry is ≤ ``tol``. C is the grid value with the highest summed fold accuracy (the
first on ties, as scikit-learn), and the test predictions come from the model fitted on all training
items with that C. All models share one design matrix; a model's rows are a 0/1 weight column, so one
step is two matrix products ``(n × p) · (p × models)``. Products run in float32; the per-model loss sums
are accumulated in float64 so that the line search can see small decreases near the optimum.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..errors import TrainingError
from .device import threads_for, torch_device


@dataclass
class LogRegCVFit:
    predictions: np.ndarray  # bool, test items
    C: float
    cv_accuracy: np.ndarray  # (folds, Cs)
    n_iter: np.ndarray  # (folds + 1, Cs)


def standardise(x_train: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    """scikit-learn's ``StandardScaler`` fitted on the training rows (a constant column is only centred)."""
    x64 = np.asarray(x_train, dtype=np.float64)
    mean, std = x64.mean(0), x64.std(0)
    std[std == 0] = 1.0
    return [((np.asarray(a, dtype=np.float64) - mean) / std).astype(np.float32) for a in (x_train, *others)]


def lbfgs(fg, x0: torch.Tensor, *, tol: float, max_iter: int, history: int = 10, max_ls: int = 30,
          c1: float = 1e-4, name: str = "logistic regression") -> tuple[torch.Tensor, np.ndarray, np.ndarray]:
    """Minimise ``M`` independent smooth objectives at once; ``x0`` is (p, M) and ``fg(x, cols)`` returns the
    objectives (float64, len(cols)) and gradients (p, len(cols)) of the columns ``cols``.

    Per column: L-BFGS two-loop direction from its own last ``history`` pairs (a pair failing the curvature
    condition counts as empty), backtracking Armijo line search with safeguarded quadratic interpolation.
    A column stops when ``max |gradient| ≤ tol``, or when its line search can no longer decrease the
    objective (float32 precision reached). Returns (x, iterations, converged)."""
    p, m = x0.shape
    dev = x0.device
    x = x0.clone()
    f, g = fg(x, torch.arange(m, device=dev))
    S = torch.zeros(history, p, m, device=dev, dtype=x.dtype)
    Yh = torch.zeros_like(S)
    rho = torch.zeros(history, m, device=dev, dtype=x.dtype)
    gamma = torch.ones(m, device=dev, dtype=x.dtype)
    n_iter = np.zeros(m, dtype=np.int64)
    converged = (g.abs().amax(0) <= tol).cpu().numpy()
    active = ~converged
    for it in range(max_iter):
        cols = torch.as_tensor(np.flatnonzero(active), device=dev)
        if len(cols) == 0:
            break
        ga, xa, fa = g[:, cols], x[:, cols], f[cols]
        Sa, Ya, ra = S[:, :, cols], Yh[:, :, cols], rho[:, cols]
        q = -ga
        alphas = []
        for j in range(min(it, history)):  # newest pair first
            slot = (it - 1 - j) % history
            a = ra[slot] * (Sa[slot] * q).sum(0)
            q = q - a * Ya[slot]
            alphas.append((slot, a))
        d = gamma[cols] * q
        for slot, a in reversed(alphas):
            b = ra[slot] * (Ya[slot] * d).sum(0)
            d = d + Sa[slot] * (a - b)
        gtd = (ga * d).sum(0)
        bad = gtd >= 0  # not a descent direction: fall back to steepest descent
        if bool(bad.any()):
            d[:, bad] = -ga[:, bad]
            gtd = (ga * d).sum(0)
        step = torch.ones(len(cols), device=dev, dtype=x.dtype)
        if it == 0:
            step = torch.clamp(1.0 / ga.abs().sum(0), max=1.0)
        f_new, g_new, x_new = fa.clone(), ga.clone(), xa.clone()
        todo = torch.ones(len(cols), dtype=torch.bool, device=dev)
        for _ in range(max_ls):
            sub = torch.nonzero(todo).squeeze(1)
            if len(sub) == 0:
                break
            xt = xa[:, sub] + step[sub] * d[:, sub]
            ft, gt = fg(xt, cols[sub])
            ok = ft <= fa[sub] + c1 * (step[sub] * gtd[sub]).double()
            acc = sub[ok]
            f_new[acc], g_new[:, acc], x_new[:, acc] = ft[ok], gt[:, ok], xt[:, ok]
            todo[acc] = False
            rej = sub[~ok]
            if len(rej):  # minimiser of the quadratic through f(0), f'(0), f(step), kept in [0.1, 0.5]·step
                st, dd = step[rej].double(), gtd[rej].double()
                curv = ft[~ok] - fa[rej] - dd * st
                trial = torch.where(curv > 0, -dd * st * st / (2 * curv), 0.5 * st)
                step[rej] = torch.clamp(trial, min=0.1 * st, max=0.5 * st).to(x.dtype)
        stalled = todo.cpu().numpy()
        if not torch.isfinite(f_new).all():
            raise TrainingError(f"{name} diverged (non-finite loss) in the L-BFGS solver")
        s_vec, y_vec = x_new - xa, g_new - ga
        sy = (s_vec * y_vec).sum(0)
        yy = (y_vec * y_vec).sum(0)
        valid = (sy > 1e-10 * yy.sqrt() * s_vec.norm(dim=0)) & ~todo
        slot = it % history
        S[slot][:, cols] = torch.where(valid, s_vec, torch.zeros_like(s_vec))
        Yh[slot][:, cols] = torch.where(valid, y_vec, torch.zeros_like(y_vec))
        rho[slot][cols] = torch.where(valid, 1.0 / sy.clamp(min=1e-30), torch.zeros_like(sy))
        gamma[cols] = torch.where(valid, sy / yy.clamp(min=1e-30), gamma[cols])
        x[:, cols], f[cols], g[:, cols] = x_new, f_new, g_new
        idx = cols.cpu().numpy()
        n_iter[idx] += 1
        done = (g_new.abs().amax(0) <= tol).cpu().numpy()
        converged[idx] |= done
        active[idx] &= ~(done | stalled)
    return x, n_iter, converged


def logreg_cv(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, *, Cs, folds, tol: float = 1e-4,
              max_iter: int = 2000, device: str = "cpu", name: str = "logistic regression") -> LogRegCVFit:
    """``folds``: (train rows, held-out rows) pairs, e.g. from ``StratifiedKFold``. Features are standardised
    on all training items first (the scikit-learn pipeline does the same)."""
    dev = torch_device(device)
    xtr, xte = standardise(x_train, x_test)
    n = len(xtr)
    y = torch.as_tensor(np.asarray(y_train, dtype=bool), dtype=torch.float32, device=dev)
    ones = np.ones((n, 1), dtype=np.float32)
    X = torch.as_tensor(np.hstack([xtr, ones]), device=dev)
    Cs = np.asarray(Cs, dtype=np.float64)
    n_folds, n_cs = len(folds), len(Cs)
    masks = np.zeros((n, (n_folds + 1) * n_cs), dtype=np.float32)
    for k, (train_rows, _) in enumerate([*folds, (np.arange(n), None)]):
        masks[np.asarray(train_rows), k * n_cs:(k + 1) * n_cs] = 1.0
    W_mask = torch.as_tensor(masks, device=dev)
    n_rows = W_mask.sum(0).double()
    lam = torch.as_tensor(1.0 / (np.tile(Cs, n_folds + 1) * n_rows.cpu().numpy()), device=dev)
    pen = torch.ones(X.shape[1], 1, device=dev)
    pen[-1] = 0.0  # the intercept is not penalised

    def fg(w: torch.Tensor, cols: torch.Tensor):
        z = X @ w
        mask = W_mask[:, cols]
        point = torch.nn.functional.softplus(z) - y[:, None] * z
        lam_c, n_c = lam[cols], n_rows[cols]
        f = (point * mask).double().sum(0) / n_c + 0.5 * lam_c * ((w * pen) ** 2).double().sum(0)
        r = (torch.sigmoid(z) - y[:, None]) * mask / n_c.float()
        grad = X.T @ r + lam_c.float() * (w * pen)
        return f, grad

    w0 = torch.zeros(X.shape[1], (n_folds + 1) * n_cs, device=dev)
    with threads_for(4.0 * X.shape[0] * X.shape[1] * w0.shape[1], dev):
        w, n_iter, _ = lbfgs(fg, w0, tol=tol, max_iter=max_iter, name=name)
    z = (X @ w).cpu().numpy() > 0
    yb = np.asarray(y_train, dtype=bool)
    acc = np.zeros((n_folds, n_cs))
    for k, (_, held) in enumerate(folds):
        held = np.asarray(held)
        acc[k] = (z[held, k * n_cs:(k + 1) * n_cs] == yb[held, None]).mean(0)
    best = int(np.argmax(acc.sum(0)))  # first maximum: scikit-learn's tie rule
    w_best = w[:, n_folds * n_cs + best]
    xt = torch.as_tensor(np.hstack([xte, np.ones((len(xte), 1), dtype=np.float32)]), device=dev)
    pred = (xt @ w_best).cpu().numpy() > 0 if len(xte) else np.zeros(0, dtype=bool)
    return LogRegCVFit(predictions=pred, C=float(Cs[best]), cv_accuracy=acc,
                       n_iter=n_iter.reshape(n_folds + 1, n_cs))
