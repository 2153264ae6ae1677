"""Cross-validated L2 logistic regression as one batched model: folds × C values (and the refits on all
training items) solved together by full-batch L-BFGS, each with its own history and line search.

Same objective as scikit-learn's ``LogisticRegressionCV`` (solver lbfgs): per model
``mean log loss + ‖w‖² / (2 · C · n)`` over its training rows (intercept not penalised). C is the grid value
with the highest summed fold accuracy (the first on ties, as scikit-learn), and the test predictions come
from the model fitted on all training items with that C.

Solved to the minimum, not to where a solver happens to stop: near the minimum of a weakly regularised
problem the loss is flat, and which C wins depends on how close each fit got. A model stops when the
Euclidean norm of its gradient is ≤ ``settings.tol`` (``LBFGSSettings``; the norm bounds every entry, so
scikit-learn's rule holds too), in float64 (float32 on MPS, which has none). The solver is preconditioned
so that it gets there in few iterations:

1. Each problem's standardised features are rotated once onto the eigenvectors of their covariance
   ``Σ = XᵀX / n``, and every model starts in coordinates scaled by ``(Σ/4 + λ)^(-1/2)``: the Hessian of
   its objective at 0 (``λ = 1 / (C · n)``; ¼ is the logistic curvature at 0).
2. Models still running after ``FIRST_PHASE_ITERATIONS`` restart from where they are in coordinates fitted
   to their current Hessian (``L⁻ᵀ``, ``LLᵀ = H``), again every ``PHASE_ITERATIONS``: a Newton-like change
   of coordinates for the near-separable ones, whose curvature keeps changing as their weights grow.

All models of a problem share its design matrix; a model's rows are a 0/1 weight row, so one objective
evaluation is two matrix products ``(models × p) · (p × n)`` and ``(models × n) · (n × p)``. Weights are
kept as rows: BLAS multiplies a 1000 × 385 matrix by a few columns several times slower than a few rows
by its transpose, and the last models to converge are that narrow.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from ..errors import TrainingError
from .device import threads_for, torch_device
from .settings import LBFGSSettings

#: The logistic loss's curvature at 0: the start of the Hessian the preconditioner inverts.
START_CURVATURE = 0.25


@dataclass
class LogRegCVFit:
    predictions: np.ndarray  # bool, test items
    C: float
    cv_accuracy: np.ndarray  # (folds, Cs)
    n_iter: np.ndarray  # (folds + 1, Cs)
    unconverged: int = 0  # models (folds × Cs and refits) stopped by ``max_iter`` before the tolerance


def standardise(x_train: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    """scikit-learn's ``StandardScaler`` fitted on the training rows (a constant column is only centred),
    in float64."""
    x64 = np.asarray(x_train, dtype=np.float64)
    mean, std = x64.mean(0), x64.std(0)
    std[std == 0] = 1.0
    return [(np.asarray(a, dtype=np.float64) - mean) / std for a in (x_train, *others)]


def lbfgs(fg, x0: torch.Tensor, *, tol: float, max_iter: int, history: int = 10, max_ls: int = 30,
          c1: float = 1e-4, name: str = "logistic regression") -> tuple[torch.Tensor, np.ndarray, np.ndarray]:
    """Minimise ``M`` independent smooth objectives at once; ``x0`` is (M, p), a row per objective, and
    ``fg(x, rows)`` returns, for the objectives ``rows`` (a sorted int array), their values (float,
    len(rows)), gradients (len(rows), p) and a stationarity measure (len(rows)) that stops a row at ≤ ``tol``.

    Per row: L-BFGS two-loop direction from its own last ``history`` pairs (a pair failing the curvature
    condition counts as empty), backtracking Armijo line search with safeguarded quadratic interpolation.
    A row also stops when its line search can no longer decrease the objective (machine precision
    reached). Returns (x, iterations, converged)."""
    m, p = x0.shape
    x = x0.clone()
    f, g, stat = fg(x, np.arange(m))
    if not torch.isfinite(f).all():
        raise TrainingError(f"{name}: non-finite loss at the starting point")
    n_iter = np.zeros(m, dtype=np.int64)
    converged = (stat <= tol).cpu().numpy()
    # The state of the rows still running, kept compacted: gathered again only when a row stops.
    ids = np.flatnonzero(~converged)
    keep = torch.as_tensor(ids, device=x.device)
    xa, fa, ga = x[keep], f[keep], g[keep]
    S = torch.zeros(history, len(ids), p, device=x.device, dtype=x.dtype)
    Yh = torch.zeros_like(S)
    rho = torch.zeros(history, len(ids), 1, device=x.device, dtype=x.dtype)
    gamma = torch.ones(len(ids), 1, device=x.device, dtype=x.dtype)
    for it in range(max_iter):
        if len(ids) == 0:
            break
        q = -ga
        alphas = []
        for j in range(min(it, history)):  # newest pair first
            slot = (it - 1 - j) % history
            a = rho[slot] * (S[slot] * q).sum(1, keepdim=True)
            q = q - a * Yh[slot]
            alphas.append((slot, a))
        d = gamma * q
        for slot, a in reversed(alphas):
            b = rho[slot] * (Yh[slot] * d).sum(1, keepdim=True)
            d = d + S[slot] * (a - b)
        gtd = (ga * d).sum(1)
        bad = gtd >= 0  # not a descent direction: fall back to steepest descent
        if bool(bad.any()):
            d[bad] = -ga[bad]
            gtd = (ga * d).sum(1)
        step = torch.ones(len(ids), device=x.device, dtype=x.dtype)
        if it == 0:
            step = torch.clamp(1.0 / ga.abs().sum(1), max=1.0)
        f_new, g_new, x_new, stat_new = fa.clone(), ga.clone(), xa.clone(), torch.zeros_like(fa)
        todo = np.ones(len(ids), dtype=bool)
        for _ in range(max_ls):
            sub = np.flatnonzero(todo)
            if len(sub) == 0:
                break
            if len(sub) == len(ids):
                xt = xa + step[:, None] * d
                ft, gt, st = fg(xt, ids)
                ok = ft <= fa + c1 * step * gtd
            else:
                ts = torch.as_tensor(sub, device=x.device)
                xt = xa[ts] + step[ts, None] * d[ts]
                ft, gt, st = fg(xt, ids[sub])
                ok = ft <= fa[ts] + c1 * step[ts] * gtd[ts]
            ok_np = ok.cpu().numpy()
            if len(sub) == len(ids) and ok_np.all():  # the usual case: every row takes its first step
                f_new, g_new, x_new, stat_new = ft, gt, xt, st
                todo[:] = False
                break
            acc = torch.as_tensor(sub[ok_np], device=x.device)
            f_new[acc], g_new[acc], x_new[acc], stat_new[acc] = ft[ok], gt[ok], xt[ok], st[ok]
            todo[sub[ok_np]] = False
            if not ok_np.all():  # minimiser of the quadratic through f(0), f'(0), f(step), kept in [0.1, 0.5]·step
                rej = torch.as_tensor(sub[~ok_np], device=x.device)
                stp, dd = step[rej], gtd[rej]
                curv = ft[~ok] - fa[rej] - dd * stp
                trial = torch.where(curv > 0, -dd * stp * stp / (2 * curv), 0.5 * stp)
                step[rej] = torch.minimum(torch.maximum(trial, 0.1 * stp), 0.5 * stp)
        if not torch.isfinite(f_new).all():
            raise TrainingError(f"{name} diverged (non-finite loss) in the L-BFGS solver")
        todo_t = torch.as_tensor(todo, device=x.device)
        s_vec, y_vec = x_new - xa, g_new - ga
        sy = (s_vec * y_vec).sum(1, keepdim=True)
        yy = (y_vec * y_vec).sum(1, keepdim=True)
        valid = (sy > 1e-10 * yy.sqrt() * s_vec.norm(dim=1, keepdim=True)) & ~todo_t[:, None]
        slot = it % history
        S[slot] = torch.where(valid, s_vec, 0.0)
        Yh[slot] = torch.where(valid, y_vec, 0.0)
        rho[slot] = torch.where(valid, 1.0 / sy.clamp(min=1e-300), 0.0)
        gamma = torch.where(valid, sy / yy.clamp(min=1e-300), gamma)
        xa, fa, ga = x_new, f_new, g_new
        n_iter[ids] += 1
        done = (stat_new <= tol).cpu().numpy() & ~todo
        stop = done | todo  # converged, or stalled: the line search found no decrease
        if stop.any():
            converged[ids[done]] = True
            fin = np.flatnonzero(stop)
            x[torch.as_tensor(ids[fin], device=x.device)] = xa[torch.as_tensor(fin, device=x.device)]
            kept = np.flatnonzero(~stop)
            keep = torch.as_tensor(kept, device=x.device)
            ids = ids[kept]
            xa, fa, ga = xa[keep], fa[keep], ga[keep]
            S, Yh, rho, gamma = S[:, keep], Yh[:, keep], rho[:, keep], gamma[keep]
    if len(ids):
        x[torch.as_tensor(ids, device=x.device)] = xa
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


def logreg_cv(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, *, Cs, folds,
              settings: LBFGSSettings = LBFGSSettings(), device: str = "cpu", name: str = "logistic regression",
              precondition: bool = True) -> LogRegCVFit:
    """One problem (see ``logreg_cv_many``)."""
    return logreg_cv_many([LogRegProblem(x_train, y_train, x_test, folds, name)], Cs=Cs, settings=settings,
                          device=device, precondition=precondition)[0]


def solver_dtype(device: torch.device) -> torch.dtype:
    """float64 wherever the device has it (MPS does not)."""
    return torch.float32 if device.type == "mps" else torch.float64


def logreg_solver_record(trainer: str, device) -> dict:
    """How the probing logistic regressions were solved (their stopping rule differs between trainers)."""
    if trainer == "torch":
        return {"solver": "L-BFGS, preconditioned", "dtype": str(solver_dtype(torch_device(device))).split(".")[-1],
                "stop": "Euclidean norm of the gradient ≤ logreg_tol, or logreg_max_iter iterations "
                        "(counted as unconverged)"}
    return {"solver": "scikit-learn lbfgs", "dtype": "float64",
            "stop": "largest gradient entry ≤ logreg_tol, or logreg_max_iter iterations (fold fits counted as "
                    "unconverged)"}


def logreg_cv_many(problems: list[LogRegProblem], *, Cs, settings: LBFGSSettings = LBFGSSettings(),
                   device: str = "cpu", precondition: bool = True) -> list[LogRegCVFit]:
    """Every problem's folds × C values and refits as rows of one L-BFGS run (problems of the same width
    share it; each keeps its own design matrix), so the solver's per-iteration work is paid once for all
    of them. Features are standardised per problem on its training items first (the scikit-learn
    pipeline does the same). ``precondition=False`` solves in the standardised features themselves
    (the same minimum, more iterations: kept to show the difference)."""
    dev = torch_device(device)
    out: list[LogRegCVFit | None] = [None] * len(problems)
    groups: dict[int, list[int]] = {}
    for k, prob in enumerate(problems):
        groups.setdefault(np.asarray(prob.x_train).shape[1], []).append(k)
    for members in groups.values():
        for k, fit in zip(members, _solve_group([problems[k] for k in members], np.asarray(Cs, dtype=np.float64),
                                                settings.tol, settings.max_iter, dev, precondition)):
            out[k] = fit
    return out  # type: ignore[return-value]


@dataclass
class _Design:
    """One problem in the solver's coordinates: rotated features with the intercept column last."""

    x: torch.Tensor  # (n, p + 1)
    test: torch.Tensor  # (n_test, p + 1)
    y: torch.Tensor  # (1, n)
    weights: torch.Tensor  # (models, n): a model's training rows, divided by their number
    scale: torch.Tensor  # (models, p + 1): the preconditioner, per model
    lam: torch.Tensor  # (models, 1): the penalty ½·lam·‖w‖², lam = 1 / (C · rows)
    start: int  # its first model's row in the solver
    #: Where a model's minimum lies: per fold with fewer training rows than features, its models, an
    #: orthonormal basis (p, r) of the fold's centred rows and their mean; and the directions no row has.
    spans: list = field(default_factory=list)
    empty: torch.Tensor | None = None  # (p,) bool

    @property
    def stop(self) -> int:
        """One past its last model's row in the solver."""
        return self.start + len(self.lam)


def _design(prob: LogRegProblem, Cs: np.ndarray, start: int, dev: torch.device, dtype: torch.dtype,
            precondition: bool) -> _Design:
    """Rotation, scaling and fold rows of one problem. The linear algebra runs in torch on the CPU in
    float64, under the solver's thread setting, so a job gives the same numbers wherever it runs."""
    xtr, xte = standardise(prob.x_train, prob.x_test)
    if not (np.isfinite(xtr).all() and np.isfinite(xte).all()):
        raise TrainingError(f"{prob.name}: its features contain NaN or infinite values")
    n, p = xtr.shape
    train, test = torch.from_numpy(xtr), torch.from_numpy(xte)
    eig, vecs = torch.linalg.eigh(train.T @ train / n)
    empty = eig <= eig.max().clamp(min=1e-300) * p * 1e-12  # no training row has these directions
    if precondition:
        train, test = train @ vecs, test @ vecs
    else:
        eig, empty = torch.zeros_like(eig), torch.zeros_like(empty)  # plain L-BFGS stays in the rows' span
    n_cs = len(Cs)
    all_folds = [*(np.asarray(f[0]) for f in prob.folds), np.arange(n)]
    rows = np.zeros((len(all_folds) * n_cs, n))
    spans = []
    for k, train_rows in enumerate(all_folds):
        rows[k * n_cs:(k + 1) * n_cs, train_rows] = 1.0
        if len(train_rows) <= p:  # fewer rows than features: the minimum lies in their span
            sub = train[train_rows]
            mean = sub.mean(0)
            _, sv, vh = torch.linalg.svd(sub - mean, full_matrices=False)
            rank = int((sv > sv.max().clamp(min=1e-300) * max(sub.shape) * 1e-15).sum())
            spans.append((torch.arange(k * n_cs, (k + 1) * n_cs), vh[:rank].T.contiguous(), mean))
    count = rows.sum(1, keepdims=True)
    lam = 1.0 / (np.tile(Cs, len(all_folds))[:, None] * count)
    curvature = np.append(START_CURVATURE * eig.clamp(min=0.0).numpy(), START_CURVATURE)  # intercept: unpenalised
    scale = 1.0 / np.sqrt(curvature[None, :] + np.hstack([np.broadcast_to(lam, (len(lam), p)),
                                                         np.zeros((len(lam), 1))]))
    if not precondition:
        scale = np.ones_like(scale)
    t = dict(device=dev, dtype=dtype)
    ones = torch.ones(1, dtype=torch.float64)
    return _Design(x=torch.cat([train, ones.expand(n, 1)], 1).to(**t),
                   test=torch.cat([test, ones.expand(len(test), 1)], 1).to(**t),
                   y=torch.as_tensor(np.asarray(prob.y_train, dtype=np.float64)[None, :], **t),
                   weights=torch.as_tensor(rows / count, **t), scale=torch.as_tensor(scale, **t),
                   lam=torch.as_tensor(lam, **t), start=start,
                   spans=[(m.to(dev), b.to(**t), c.to(**t)) for m, b, c in spans],
                   empty=empty.to(dev) if bool(empty.any()) else None)


def _into_span(designs: list[_Design], u: torch.Tensor) -> None:
    """Move each model's weights (rows of ``u``, in place) to where its minimum lies, keeping its training
    scores: along a direction none of its training rows vary in, only the penalty acts, so the minimum has no
    component there. The preconditioner mixes such directions in (only for folds with fewer rows than features,
    and directions no row has), and at large C their penalty is too weak to remove them, yet they move held-out
    scores. Measured on ten random 60 × 150 problems: components up to 0.8 after a phase; removing them changed
    one problem's results at tol 1e-6, none at 1e-8. Kept: one small SVD per such fold."""
    for d in designs:
        block = u[d.start:d.stop]
        if d.empty is not None:
            block[:, :-1][:, d.empty] = 0.0
        for models, basis, mean in d.spans:
            w = block[models, :-1]
            kept = (w @ basis) @ basis.T
            block[models, -1] += (w - kept) @ mean
            block[models, :-1] = kept


class _Objective:
    """The batched objective over some solver rows, in preconditioned coordinates ``v``: a row's weights
    in the rotated basis are ``u = offset + T·v``, with ``T`` diagonal (``scale``) or dense (``dense``).
    Returns (loss, gradient in ``v``, ‖gradient in ``u``‖₂): the rotation is orthogonal, so the last is the
    norm of the gradient in the original features."""

    def __init__(self, designs: list[_Design], rows: np.ndarray, offset: torch.Tensor,
                 scale: torch.Tensor | None = None, dense: torch.Tensor | None = None):
        self.designs, self.rows, self.offset, self.scale, self.dense = designs, rows, offset, scale, dense
        self.starts = np.array([d.start for d in designs] + [designs[-1].stop])
        self._cached: tuple[bytes, list] | None = None

    def weights(self, v: torch.Tensor, local: slice | torch.Tensor = slice(None)) -> torch.Tensor:
        """``u`` of the rows ``local`` (positions in ``self.rows``) at ``v``."""
        if self.dense is not None:
            return self.offset[local] + torch.bmm(self.dense[local], v.unsqueeze(2)).squeeze(2)
        return self.offset[local] + v * self.scale[local]

    def _blocks(self, local: np.ndarray) -> list:
        """Per problem present: its slice of ``local`` and its models' data, gathered once per set of rows."""
        key = local.tobytes()
        if self._cached is None or self._cached[0] != key:
            rows = self.rows[local]
            bounds = np.searchsorted(rows, self.starts)
            blocks = []
            for h, d in enumerate(self.designs):
                a, b = int(bounds[h]), int(bounds[h + 1])
                if a == b:
                    continue
                models = torch.as_tensor(rows[a:b] - d.start, device=d.x.device)
                mine = torch.as_tensor(local[a:b], device=d.x.device)
                blocks.append((a, b, d, mine, d.weights[models], d.lam[models]))
            self._cached = (key, blocks)
        return self._cached[1]

    def __call__(self, v: torch.Tensor, local: np.ndarray):
        f = torch.empty(len(local), dtype=v.dtype, device=v.device)
        g = torch.empty_like(v)
        stat = torch.empty_like(f)
        for a, b, d, mine, weights, lam in self._blocks(local):
            u = self.weights(v[a:b], mine)
            z = F.linear(u, d.x)  # (models, n)
            pen = u[:, :-1]
            f[a:b] = ((F.softplus(z) - d.y * z) * weights).sum(1) + 0.5 * lam[:, 0] * (pen * pen).sum(1)
            gu = ((torch.sigmoid(z) - d.y) * weights) @ d.x
            gu[:, :-1] += lam * pen
            stat[a:b] = gu.norm(dim=1)
            if self.dense is not None:
                g[a:b] = torch.bmm(gu.unsqueeze(1), self.dense[mine]).squeeze(1)  # Tᵀ·gu, as rows
            else:
                g[a:b] = gu * self.scale[mine]
        return f, g, stat


def _curvature_transforms(designs: list[_Design], rows: np.ndarray, u: torch.Tensor) -> torch.Tensor:
    """Per row, ``T = L⁻ᵀ`` where ``L·Lᵀ`` is the Hessian of its objective at ``u``: in ``v = T⁻¹(w − u)``
    the Hessian there is the identity (one Newton-like change of coordinates)."""
    out = torch.empty(len(rows), u.shape[1], u.shape[1], dtype=u.dtype, device=u.device)
    starts = np.array([d.start for d in designs])
    eye = torch.eye(u.shape[1], dtype=u.dtype, device=u.device)
    for k, row in enumerate(rows):
        d = designs[int(np.searchsorted(starts, row, side="right")) - 1]
        model = int(row) - d.start
        prob = torch.sigmoid(d.x @ u[k])
        root = d.x * (d.weights[model] * prob * (1 - prob)).sqrt()[:, None]
        hess = root.T @ root
        hess.diagonal()[:-1] += d.lam[model, 0]
        chol, info = torch.linalg.cholesky_ex(hess)
        if int(info):  # numerically singular (a saturated intercept): a tiny ridge keeps it usable
            chol = torch.linalg.cholesky(hess + 1e-10 * hess.diagonal().max() * eye)
        out[k] = torch.linalg.solve_triangular(chol, eye, upper=False).T
    return out


#: Iterations of each phase: after one, the rows still running get their coordinates re-fitted to the
#: curvature where they are. Near-separable problems at C ≥ 100 (the Gaussian controls of the generated
#: probes) otherwise need up to ~1,000 iterations to a gradient of 1e-6; with these they need ≤ 150. A
#: refit costs about 8 ms per row (a 385-wide Hessian), so the first phase is long enough for most rows
#: to finish in it (measured over three generated probes: 100/15 took 5.8 s, 30/30 7.0 s, 300/15 7.0 s).
FIRST_PHASE_ITERATIONS = 100
PHASE_ITERATIONS = 15


def _solve(designs: list[_Design], tol: float, max_iter: int, precondition: bool, name: str):
    """(weights in the rotated basis, iterations, stopped by the cap) of every solver row: a first phase in
    the diagonal coordinates, then phases re-fitted to the current curvature until every row converges or
    stalls, or ``max_iter`` iterations."""
    first = designs[0]
    m, p1 = designs[-1].stop, first.x.shape[1]
    u = torch.zeros(m, p1, dtype=first.x.dtype, device=first.x.device)
    n_iter = np.zeros(m, dtype=np.int64)
    scale = torch.cat([d.scale for d in designs])
    rows = np.arange(m)
    objective = _Objective(designs, rows, u.clone(), scale=scale)
    phase = FIRST_PHASE_ITERATIONS
    while len(rows) and n_iter[rows].max() < max_iter:
        if phase == PHASE_ITERATIONS:  # a later phase: coordinates fitted to the curvature where the rows are
            at = u[torch.as_tensor(rows, device=u.device)]
            objective = _Objective(designs, rows, at, dense=_curvature_transforms(designs, rows, at))
        budget = max_iter - int(n_iter[rows].max())
        steps = min(phase, budget) if precondition else budget
        v, it, converged = lbfgs(objective, torch.zeros(len(rows), p1, dtype=u.dtype, device=u.device),
                                 tol=tol, max_iter=steps, name=name)
        u[torch.as_tensor(rows, device=u.device)] = objective.weights(v)
        _into_span(designs, u)
        n_iter[rows] += it
        rows = rows[~converged & (it == steps)]  # a row that stalled has reached machine precision
        phase = PHASE_ITERATIONS
    capped = np.zeros(m, dtype=bool)
    capped[rows] = True  # still running at the cap (every running row has done the same iterations)
    return u, n_iter, capped


def _solve_group(problems: list[LogRegProblem], Cs: np.ndarray, tol: float, max_iter: int,
                 dev: torch.device, precondition: bool) -> list[LogRegCVFit]:
    n_cs = len(Cs)
    dtype = solver_dtype(dev)
    flops = 4.0 * sum(np.shape(p.x_train)[0] * (np.shape(p.x_train)[1] + 1) * (len(p.folds) + 1) * n_cs
                      for p in problems)
    names = ", ".join(p.name for p in problems[:3]) + (" …" if len(problems) > 3 else "")
    with threads_for(flops, dev):
        designs, start = [], 0
        for prob in problems:
            designs.append(_design(prob, Cs, start, dev, dtype, precondition))
            start = designs[-1].stop
        weights, n_iter, capped = _solve(designs, tol, max_iter, precondition, names)
        fits = []
        for prob, d in zip(problems, designs):
            n_folds = len(prob.folds)
            u = weights[d.start:d.stop]
            z = (F.linear(u, d.x) > 0).cpu().numpy()  # (models, n)
            yb = np.asarray(prob.y_train, dtype=bool)
            acc = np.zeros((n_folds, n_cs))
            for k, (_, held) in enumerate(prob.folds):
                held = np.asarray(held)
                acc[k] = (z[k * n_cs:(k + 1) * n_cs, held] == yb[None, held]).mean(1)
            best = int(np.argmax(acc.sum(0)))  # first maximum: scikit-learn's tie rule
            pred = (d.test @ u[n_folds * n_cs + best] > 0).cpu().numpy() if len(d.test) else np.zeros(0, dtype=bool)
            fits.append(LogRegCVFit(predictions=pred, C=float(Cs[best]), cv_accuracy=acc,
                                    n_iter=n_iter[d.start:d.stop].reshape(n_folds + 1, n_cs),
                                    unconverged=int(capped[d.start:d.stop].sum())))
        return fits
