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
    n_iter = np.zeros(m, dtype=np.int64)
    converged = (g.abs().amax(0) <= tol).cpu().numpy()
    # The state of the columns still running, kept compacted: gathered again only when a column stops
    # (gathering the history of the active columns every iteration took about a sixth of the solver's time).
    ids = np.flatnonzero(~converged)
    cols = torch.as_tensor(ids, device=dev)
    xa, fa, ga = x[:, cols], f[cols], g[:, cols]
    S = torch.zeros(history, p, len(ids), device=dev, dtype=x.dtype)
    Yh = torch.zeros_like(S)
    rho = torch.zeros(history, len(ids), device=dev, dtype=x.dtype)
    gamma = torch.ones(len(ids), device=dev, dtype=x.dtype)
    for it in range(max_iter):
        if len(ids) == 0:
            break
        q = -ga
        alphas = []
        for j in range(min(it, history)):  # newest pair first
            slot = (it - 1 - j) % history
            a = rho[slot] * (S[slot] * q).sum(0)
            q = q - a * Yh[slot]
            alphas.append((slot, a))
        d = gamma * q
        for slot, a in reversed(alphas):
            b = rho[slot] * (Yh[slot] * d).sum(0)
            d = d + S[slot] * (a - b)
        gtd = (ga * d).sum(0)
        bad = gtd >= 0  # not a descent direction: fall back to steepest descent
        if bool(bad.any()):
            d[:, bad] = -ga[:, bad]
            gtd = (ga * d).sum(0)
        step = torch.ones(len(ids), device=dev, dtype=x.dtype)
        if it == 0:
            step = torch.clamp(1.0 / ga.abs().sum(0), max=1.0)
        f_new, g_new, x_new = fa.clone(), ga.clone(), xa.clone()
        todo = torch.ones(len(ids), dtype=torch.bool, device=dev)
        for _ in range(max_ls):
            sub = torch.nonzero(todo).squeeze(1)
            if len(sub) == 0:
                break
            everyone = len(sub) == len(ids)
            xt = xa + step * d if everyone else xa[:, sub] + step[sub] * d[:, sub]
            ft, gt = fg(xt, cols if everyone else cols[sub])
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
        if not torch.isfinite(f_new).all():
            raise TrainingError(f"{name} diverged (non-finite loss) in the L-BFGS solver")
        s_vec, y_vec = x_new - xa, g_new - ga
        sy = (s_vec * y_vec).sum(0)
        yy = (y_vec * y_vec).sum(0)
        valid = (sy > 1e-10 * yy.sqrt() * s_vec.norm(dim=0)) & ~todo
        slot = it % history
        S[slot] = torch.where(valid, s_vec, torch.zeros_like(s_vec))
        Yh[slot] = torch.where(valid, y_vec, torch.zeros_like(y_vec))
        rho[slot] = torch.where(valid, 1.0 / sy.clamp(min=1e-30), torch.zeros_like(sy))
        gamma = torch.where(valid, sy / yy.clamp(min=1e-30), gamma)
        xa, fa, ga = x_new, f_new, g_new
        n_iter[ids] += 1
        done = (ga.abs().amax(0) <= tol).cpu().numpy()
        stop = done | todo.cpu().numpy()  # converged, or stalled: the line search found no decrease
        if stop.any():
            converged[ids[done]] = True
            fin = torch.as_tensor(np.flatnonzero(stop), device=dev)
            x[:, cols[fin]] = xa[:, fin]
            keep_np = np.flatnonzero(~stop)
            keep = torch.as_tensor(keep_np, device=dev)
            ids, cols = ids[keep_np], cols[keep]
            xa, fa, ga = xa[:, keep], fa[keep], ga[:, keep]
            S, Yh, rho, gamma = S[:, :, keep], Yh[:, :, keep], rho[:, keep], gamma[keep]
    if len(ids):
        x[:, cols] = xa
    return x, n_iter, converged


@dataclass
class LogRegProblem:
    """One cross-validated logistic regression: training rows and labels, the rows to predict, and the
    (train rows, held-out rows) folds, e.g. from ``StratifiedKFold``."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    folds: list
    name: str = "logistic regression"


def logreg_cv(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, *, Cs, folds, tol: float = 1e-4,
              max_iter: int = 2000, device: str = "cpu", name: str = "logistic regression") -> LogRegCVFit:
    """One problem (see ``logreg_cv_many``)."""
    return logreg_cv_many([LogRegProblem(x_train, y_train, x_test, folds, name)], Cs=Cs, tol=tol,
                          max_iter=max_iter, device=device)[0]


def logreg_cv_many(problems: list[LogRegProblem], *, Cs, tol: float = 1e-4, max_iter: int = 2000,
                   device: str = "cpu") -> list[LogRegCVFit]:
    """Every problem's folds × C values and refits as columns of one L-BFGS run (problems of the same
    width share it; each keeps its own design matrix), so the solver's per-iteration work is paid once
    for all of them. Features are standardised per problem on its training items first (the
    scikit-learn pipeline does the same)."""
    dev = torch_device(device)
    out: list[LogRegCVFit | None] = [None] * len(problems)
    groups: dict[int, list[int]] = {}
    for k, prob in enumerate(problems):
        groups.setdefault(np.asarray(prob.x_train).shape[1], []).append(k)
    for members in groups.values():
        for k, fit in zip(members, _solve_group([problems[k] for k in members], np.asarray(Cs, dtype=np.float64),
                                                tol, max_iter, dev)):
            out[k] = fit
    return out  # type: ignore[return-value]


def _solve_group(problems: list[LogRegProblem], Cs: np.ndarray, tol: float, max_iter: int,
                 dev: torch.device) -> list[LogRegCVFit]:
    n_cs = len(Cs)
    Xs, ys, masks, lams, n_rows_all, spans, tests = [], [], [], [], [], [], []
    col = 0
    for prob in problems:
        xtr, xte = standardise(prob.x_train, prob.x_test)
        n = len(xtr)
        Xs.append(torch.as_tensor(np.hstack([xtr, np.ones((n, 1), dtype=np.float32)]), device=dev))
        tests.append(np.hstack([xte, np.ones((len(xte), 1), dtype=np.float32)]))
        ys.append(torch.as_tensor(np.asarray(prob.y_train, dtype=bool), dtype=torch.float32, device=dev))
        n_folds = len(prob.folds)
        mask = np.zeros((n, (n_folds + 1) * n_cs), dtype=np.float32)
        for k, (train_rows, _) in enumerate([*prob.folds, (np.arange(n), None)]):
            mask[np.asarray(train_rows), k * n_cs:(k + 1) * n_cs] = 1.0
        masks.append(torch.as_tensor(mask, device=dev))
        rows = mask.sum(0).astype(np.float64)
        n_rows_all.append(rows)
        lams.append(1.0 / (np.tile(Cs, n_folds + 1) * rows))
        spans.append((col, col + mask.shape[1]))
        col += mask.shape[1]
    n_rows = torch.as_tensor(np.concatenate(n_rows_all), device=dev)
    lam = torch.as_tensor(np.concatenate(lams), device=dev)
    head = torch.as_tensor(np.concatenate([[h] * (b - a) for h, (a, b) in enumerate(spans)]), device=dev)
    p1 = Xs[0].shape[1]
    pen = torch.ones(p1, 1, device=dev)
    pen[-1] = 0.0  # the intercept is not penalised

    def fg(w: torch.Tensor, cols: torch.Tensor):
        f = torch.empty(len(cols), dtype=torch.float64, device=dev)
        grad = torch.empty_like(w)
        heads = head[cols]
        for h in torch.unique(heads).tolist():
            sel = torch.nonzero(heads == h).squeeze(1)
            local = cols[sel] - spans[h][0]
            wh = w[:, sel]
            z = Xs[h] @ wh
            mask = masks[h][:, local]
            point = torch.nn.functional.softplus(z) - ys[h][:, None] * z
            c = cols[sel]
            lam_c, n_c = lam[c], n_rows[c]
            f[sel] = (point * mask).double().sum(0) / n_c + 0.5 * lam_c * ((wh * pen) ** 2).double().sum(0)
            r = (torch.sigmoid(z) - ys[h][:, None]) * mask / n_c.float()
            grad[:, sel] = Xs[h].T @ r + lam_c.float() * (wh * pen)
        return f, grad

    flops = 4.0 * sum(x.shape[0] * (b - a) for x, (a, b) in zip(Xs, spans)) * p1
    names = ", ".join(p.name for p in problems[:3]) + (" …" if len(problems) > 3 else "")
    with threads_for(flops, dev):
        w, n_iter, _ = lbfgs(fg, torch.zeros(p1, col, device=dev), tol=tol, max_iter=max_iter, name=names)
    fits = []
    for prob, (a, b), X, xt in zip(problems, spans, Xs, tests):
        n_folds = len(prob.folds)
        z = (X @ w[:, a:b]).cpu().numpy() > 0
        yb = np.asarray(prob.y_train, dtype=bool)
        acc = np.zeros((n_folds, n_cs))
        for k, (_, held) in enumerate(prob.folds):
            held = np.asarray(held)
            acc[k] = (z[held, k * n_cs:(k + 1) * n_cs] == yb[held, None]).mean(0)
        best = int(np.argmax(acc.sum(0)))  # first maximum: scikit-learn's tie rule
        w_best = w[:, a + n_folds * n_cs + best]
        pred = ((torch.as_tensor(xt, device=dev) @ w_best).cpu().numpy() > 0 if len(xt)
                else np.zeros(0, dtype=bool))
        fits.append(LogRegCVFit(predictions=pred, C=float(Cs[best]), cv_accuracy=acc,
                                n_iter=n_iter[a:b].reshape(n_folds + 1, n_cs)))
    return fits
