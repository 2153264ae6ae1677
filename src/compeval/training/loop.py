"""The training loop of the lexcomp heads: Adam on mini-batches, early stopping on a validation score,
the best epoch's weights kept; on an explicit device."""
from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field

import torch
from torch import nn

from ..errors import TrainingError
from .device import threads_for, torch_device
from .settings import EarlyStopping
from .. import seeds


@dataclass
class TrainResult:
    model: nn.Module
    best_val: float
    best_epoch: int
    epochs: int
    seconds: float
    history: list[float] = field(default_factory=list)


def length_batches(lengths: torch.Tensor, batch_size: int, gen: torch.Generator) -> list[torch.Tensor]:
    """Mini-batches of similar length (sorted with random tie-breaks, batch order shuffled), so
    per-batch trimming saves most of the padded work."""
    noise = torch.rand(len(lengths), generator=gen)
    order = torch.argsort(lengths.double() + noise.double())
    batches = list(order.split(batch_size))
    return [batches[i] for i in torch.randperm(len(batches), generator=gen).tolist()]


def train(model: nn.Module, train_inputs: tuple, y: torch.Tensor, loss_fn, val_score, cfg: EarlyStopping,
          seed: int, lengths: torch.Tensor | None = None, device: str = "cpu", name: str = "head") -> TrainResult:
    """Adam on shuffled mini-batches, keeping the best epoch's weights. ``val_score(model)`` may be a tuple
    compared in order, e.g. (accuracy, -validation loss), so that on a plateau of the metric a falling loss still
    counts as gain; ``best_val`` is its first element. Inputs may stay on the CPU (float16); the model and each
    batch move to ``device``. A NaN or infinite loss raises ``TrainingError`` naming ``name`` and the seed."""
    dev = torch_device(device)
    model.to(dev)
    tokens = cfg.batch_size * (float(lengths.double().mean()) if lengths is not None and len(lengths) else 1.0)
    with threads_for(6.0 * sum(p.numel() for p in model.parameters()) * tokens, dev):
        return _train(model, train_inputs, y, loss_fn, val_score, cfg, seed, lengths, dev, name)


def _train(model: nn.Module, train_inputs: tuple, y: torch.Tensor, loss_fn, val_score, cfg: EarlyStopping,
           seed: int, lengths: torch.Tensor | None, dev: torch.device, name: str) -> TrainResult:
    t0 = time.perf_counter()
    gen = seeds.torch_generator(seed, "batch-order")
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    best, best_state, best_epoch, history = None, None, -1, []
    n = len(y)
    epoch = 0
    for epoch in range(1, cfg.max_epochs + 1):
        model.train()
        batches = (length_batches(lengths, cfg.batch_size, gen) if lengths is not None
                   else torch.randperm(n, generator=gen).split(cfg.batch_size))
        total = torch.zeros((), device=dev)
        for idx in batches:
            opt.zero_grad()
            inputs = (t[idx].to(dev, non_blocking=True) if t is not None else None for t in train_inputs)
            loss = loss_fn(model(*inputs), y[idx].to(dev, non_blocking=True))
            loss.backward()
            opt.step()
            total += loss.detach()
        if not torch.isfinite(total):
            raise TrainingError(f"{name} (seed {seed}) diverged: training loss {float(total)} at epoch {epoch}")
        model.eval()
        with torch.no_grad():
            score = val_score(model)
        score = tuple(float(v) for v in score) if isinstance(score, tuple) else (float(score),)
        history.append(score[0])
        if best is None or score > best:
            best, best_state, best_epoch = score, copy.deepcopy(model.state_dict()), epoch
        elif epoch - best_epoch >= cfg.patience:
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return TrainResult(model, best[0] if best else float("nan"), best_epoch, epoch, time.perf_counter() - t0, history)
