"""Batched scikit-learn-compatible MLPs (``MLPClassifier`` / ``MLPRegressor``, solver adam) in torch.

Several heads of the same shape (a probe and its controls, the repeats of a regressor) train as one
model with stacked weights: every step is one ``torch.bmm`` per layer for all of them. Each head keeps
its own state exactly as scikit-learn would: its own ``numpy.random.RandomState(seed)`` draws the
Glorot-uniform initial weights, the optional validation split and every epoch's shuffle in
scikit-learn's order, so a head follows scikit-learn's trajectory up to floating-point rounding. Adam
is scikit-learn's formula; the loss is the mean batch loss plus ``alpha / 2 · ‖W‖² / batch`` (biases
not penalised). A head stops by scikit-learn's rule (no improvement by ``tol`` for more than
``n_iter_no_change`` epochs) and leaves the batch; the others go on. The backward pass and the Adam
update are written out by hand (``_loss_and_grads``), into reused buffers: for heads this small,
autograd's bookkeeping and fresh allocations cost about a fifth of each step.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from ..errors import TrainingError
from .device import threads_for, torch_device
from .settings import AdamSettings


@dataclass
class MLPJob:
    """One head: training inputs and targets, the inputs to predict, and its seed."""

    name: str
    x: np.ndarray
    y: np.ndarray
    x_predict: np.ndarray
    seed: int


@dataclass
class MLPFit:
    name: str
    seed: int
    predictions: np.ndarray  # bool (classifier) or float (regressor)
    n_iter: int
    loss: float
    loss_curve: list[float] = field(default_factory=list)
    best_validation_score: float | None = None


def _init(rs: np.random.RandomState, units: list[int]) -> list[np.ndarray]:
    """scikit-learn's ``_init_coef`` for ReLU (factor 6), layer by layer: weights, then biases."""
    out = []
    for fan_in, fan_out in zip(units[:-1], units[1:]):
        bound = np.sqrt(6.0 / (fan_in + fan_out))
        out.append(rs.uniform(-bound, bound, (fan_in, fan_out)))
        out.append(rs.uniform(-bound, bound, fan_out))
    return out


def _affine(h: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """h (M, B, I) · w (M, I, O) + b (M, O). A one-unit output layer is a broadcast product and a sum:
    a batched matrix-vector product was 5–10× slower on the CPU than the elementwise form."""
    if w.shape[-1] == 1:
        return (h * w.transpose(1, 2)).sum(-1, keepdim=True) + b.unsqueeze(1)
    return torch.baddbmm(b.unsqueeze(1), h, w)


def _forward(params: list[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """x (M, B, P) → outputs (M, B); ReLU between layers, identity at the end (logit or value)."""
    h = x
    n_layers = len(params) // 2
    for i in range(n_layers):
        h = _affine(h, params[2 * i], params[2 * i + 1])
        if i < n_layers - 1:
            h = torch.relu(h)
    return h.squeeze(-1)


def _point_loss(out: torch.Tensor, y: torch.Tensor, classify: bool) -> torch.Tensor:
    if classify:  # binary log loss from the logit, numerically stable
        return torch.nn.functional.binary_cross_entropy_with_logits(out, y, reduction="none")
    return 0.5 * (out - y) ** 2


def _loss_and_grads(params: list[torch.Tensor], xb: torch.Tensor, yb: torch.Tensor, classify: bool,
                    alpha: float, size: int, grads: list[torch.Tensor]) -> torch.Tensor:
    """Per-head loss (mean point loss + ``alpha / 2 · ‖W‖² / size``) and its gradients, as
    scikit-learn's ``_backprop``, written into ``grads`` (reused buffers: a fresh weight-sized tensor took 3–6×
    as long)."""
    n_layers = len(params) // 2
    acts = [xb]
    h = xb
    for i in range(n_layers):
        h = _affine(h, params[2 * i], params[2 * i + 1])
        if i < n_layers - 1:
            h = torch.relu(h)
            acts.append(h)
    out = h.squeeze(-1)
    point = _point_loss(out, yb, classify).mean(1)
    delta = ((torch.sigmoid(out) if classify else out) - yb).div_(size).unsqueeze(-1)
    penalty = torch.zeros(out.shape[0], dtype=out.dtype, device=out.device)
    for i in reversed(range(n_layers)):
        w = params[2 * i]
        penalty += torch.linalg.vector_norm(w, dim=(1, 2)) ** 2
        if w.shape[-1] == 1:  # one output unit: products as broadcasts (see _affine)
            grads[2 * i].copy_((acts[i] * delta).sum(1, keepdim=True).transpose(1, 2)).add_(w, alpha=alpha / size)
        else:
            torch.baddbmm(w, acts[i].transpose(1, 2), delta, beta=alpha / size, out=grads[2 * i])
        torch.sum(delta, 1, out=grads[2 * i + 1])
        if i > 0:
            back = delta * w.transpose(1, 2) if w.shape[-1] == 1 else torch.bmm(delta, w.transpose(1, 2))
            # ReLU's derivative: keep δ where the unit was active (one fused op; a comparison, then a
            # product, took four times as long)
            delta = torch.ops.aten.threshold_backward(back, acts[i], 0)
    return point + 0.5 * alpha * penalty / size


#: scikit-learn's Adam constants (its defaults; ``MLPClassifier`` takes none of them as options).
BETA1, BETA2, EPSILON = 0.9, 0.999, 1e-8


def _adam_step(params: list[torch.Tensor], grads: list[torch.Tensor], ms: list[torch.Tensor],
               vs: list[torch.Tensor], steps: list[torch.Tensor], t: int, lr: float, beta2: float = BETA2) -> None:
    """scikit-learn's Adam step ``t`` for every parameter in one pass over memory (torch's fused kernel):
    m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g², w ← w − lr_t · m / (√v + ε), lr_t = lr·√(1−β2ᵗ)/(1−β1ᵗ).
    torch's kernel divides by √v/√(1−β2ᵗ) + ε' and steps by lr/(1−β1ᵗ); with ε' = ε/√(1−β2ᵗ) that is the same
    update. Seven elementwise passes took 1.3 ms of a 6.6 ms Ettinger-probe step on one thread; this takes 0.4."""
    for step in steps:
        step.fill_(t)
    torch._fused_adam_(params, grads, ms, vs, [], steps, lr=lr, beta1=BETA1, beta2=beta2, weight_decay=0.0,
                       eps=EPSILON / float(np.sqrt(1 - beta2 ** t)), amsgrad=False, maximize=False)


def _score(out: torch.Tensor, y: torch.Tensor, classify: bool) -> torch.Tensor:
    """Per-head validation score as scikit-learn's ``score``: accuracy, or R²."""
    if classify:
        return ((out > 0) == (y > 0.5)).double().mean(1)
    y64, out64 = y.double(), out.double()
    ss_res = ((y64 - out64) ** 2).sum(1)
    ss_tot = ((y64 - y64.mean(1, keepdim=True)) ** 2).sum(1)
    return 1 - ss_res / ss_tot


def fit_mlps(jobs: list[MLPJob], *, hidden: tuple[int, ...] | None = None, classify: bool = True,
             settings: AdamSettings = AdamSettings(), device: str = "cpu") -> list[MLPFit]:
    """Train every job (grouped by shape into batched models); ``hidden=None`` is the 2018 probe (one hidden
    layer as wide as the input). A NaN or infinite loss raises ``TrainingError`` naming the head and its seed."""
    dev = torch_device(device)
    groups: dict[tuple, list[int]] = {}
    for k, job in enumerate(jobs):
        h = (job.x.shape[1],) if hidden is None else tuple(hidden)
        groups.setdefault((job.x.shape, job.x_predict.shape, h), []).append(k)
    fits: list[MLPFit | None] = [None] * len(jobs)
    for (shape, _, h), members in groups.items():
        units = [shape[1], *h, 1]
        flops = 6 * len(members) * min(settings.batch_size, shape[0]) * sum(a * b for a, b in zip(units, units[1:]))
        with threads_for(flops, dev):
            for k, fit in zip(members, _fit_group([jobs[k] for k in members], h, classify, settings, dev)):
                fits[k] = fit
    return fits  # type: ignore[return-value]


def _fit_group(jobs: list[MLPJob], hidden: tuple[int, ...], classify: bool, s: AdamSettings,
               dev: torch.device) -> list[MLPFit]:
    from sklearn.model_selection import train_test_split

    n, p = jobs[0].x.shape
    units = [p, *hidden, 1]
    states = [np.random.RandomState(j.seed) for j in jobs]
    inits = [_init(rs, units) for rs in states]
    xs, ys, xv, yv = [], [], [], []
    for job, rs in zip(jobs, states):
        y = np.asarray(job.y, dtype=np.float64)
        if classify:
            y = (y > 0.5).astype(np.float64) if y.dtype != bool else y.astype(np.float64)
        if s.early_stopping:  # scikit-learn: split after the initial weights, from the same stream
            a, b, c, d = train_test_split(job.x, y, random_state=rs, test_size=s.validation_fraction,
                                          stratify=y if classify else None)
            xs.append(a), xv.append(b), ys.append(c), yv.append(d)
        else:
            xs.append(job.x), ys.append(y)
    f32 = dict(dtype=torch.float32, device=dev)
    X = torch.as_tensor(np.stack(xs), **f32)
    Y = torch.as_tensor(np.stack(ys), **f32)
    Xv = torch.as_tensor(np.stack(xv), **f32) if s.early_stopping else None
    Yv = torch.as_tensor(np.stack(yv), **f32) if s.early_stopping else None
    m_all, n_train = X.shape[0], X.shape[1]
    batch = min(s.batch_size, n_train)
    params = [torch.as_tensor(np.stack([ini[i] for ini in inits]), **f32) for i in range(len(units) * 2 - 2)]
    ms = [torch.zeros_like(q) for q in params]
    vs = [torch.zeros_like(q) for q in params]
    order = [np.arange(n_train) for _ in jobs]
    active = list(range(m_all))  # heads still training, in batch order
    final: dict[int, list[torch.Tensor]] = {}
    curves: list[list[float]] = [[] for _ in jobs]
    best_loss = [np.inf] * m_all
    best_val = [-np.inf] * m_all
    best_params: dict[int, list[torch.Tensor]] = {k: [q[k].clone() for q in params] for k in range(m_all)}
    no_improve = [0] * m_all
    n_iter = [0] * m_all
    xa, ya = X, Y
    xe: torch.Tensor | None = None
    ye: torch.Tensor | None = None
    grads: list[torch.Tensor] | None = None
    steps = [torch.zeros((), dtype=torch.float32, device=dev) for _ in params]
    t = 0
    for epoch in range(1, s.max_iter + 1):
        for k in active:  # scikit-learn shuffles its running index array in place of a fresh one
            order[k] = order[k][states[k].permutation(n_train)]
        if xe is None or xe.shape[0] != len(active):
            xe, ye = torch.empty_like(xa), torch.empty_like(ya)
        # the epoch's order gathered once; each batch is then a view (one gather per step cost a tenth of the
        # Ettinger probes' training time; a row copy per head takes half the time of one advanced index)
        for pos, k in enumerate(active):
            rows = torch.as_tensor(order[k], device=dev)
            torch.index_select(xa[pos], 0, rows, out=xe[pos])
            torch.index_select(ya[pos], 0, rows, out=ye[pos])
        epoch_loss = torch.zeros(len(active), dtype=torch.float64, device=dev)
        for start in range(0, n_train, batch):
            xb, yb = xe[:, start:start + batch], ye[:, start:start + batch]
            size = xb.shape[1]
            if grads is None:  # (re)allocated after heads leave the batch
                grads = [torch.empty_like(q) for q in params]
            per_head = _loss_and_grads(params, xb, yb, classify, s.alpha, size, grads)
            epoch_loss += per_head.double() * size
            t += 1
            _adam_step(params, grads, ms, vs, steps, t, s.lr)
        losses = (epoch_loss / n_train).tolist()
        scores = None
        if s.early_stopping:
            with torch.no_grad():
                scores = _score(_forward(params, Xv[active]), Yv[active], classify).tolist()
        stopped = []
        for pos, k in enumerate(active):
            n_iter[k] = epoch
            curves[k].append(losses[pos])
            if not np.isfinite(losses[pos]):
                raise TrainingError(f"head {jobs[k].name!r} (seed {jobs[k].seed}) diverged: training loss "
                                    f"{losses[pos]} at epoch {epoch}")
            if s.early_stopping:
                val = scores[pos]
                no_improve[k] = no_improve[k] + 1 if val < best_val[k] + s.tol else 0
                if val > best_val[k]:
                    best_val[k] = val
                    best_params[k] = [q[pos].clone() for q in params]
            else:
                no_improve[k] = no_improve[k] + 1 if losses[pos] > best_loss[k] - s.tol else 0
                best_loss[k] = min(best_loss[k], losses[pos])
            if no_improve[k] > s.n_iter_no_change or epoch == s.max_iter:
                stopped.append(pos)
                final[k] = best_params[k] if s.early_stopping else [q[pos].clone() for q in params]
        if stopped:
            keep = [pos for pos in range(len(active)) if pos not in stopped]
            active = [active[pos] for pos in keep]
            if not active:
                break
            sel = torch.as_tensor(keep, device=dev)
            xa, ya = xa[sel], ya[sel]
            params = [q[sel].contiguous() for q in params]
            ms = [m[sel].contiguous() for m in ms]
            vs = [v[sel].contiguous() for v in vs]
            grads = None
    stacked = [torch.stack([final[k][i] for k in range(m_all)]) for i in range(len(units) * 2 - 2)]
    xp = torch.as_tensor(np.stack([j.x_predict for j in jobs]), **f32)
    with torch.no_grad():
        out = _forward(stacked, xp).cpu().numpy() if xp.shape[1] else np.zeros((m_all, 0), dtype=np.float32)
    return [MLPFit(name=j.name, seed=j.seed, predictions=(out[k] > 0) if classify else out[k].astype(np.float64),
                   n_iter=n_iter[k], loss=curves[k][-1], loss_curve=curves[k],
                   best_validation_score=best_val[k] if s.early_stopping else None)
            for k, j in enumerate(jobs)]
