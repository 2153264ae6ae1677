"""Trainer settings, each default on the trainer it configures. Task options nest them, so a task that wants
another default (the probes' 700 epochs) says so once; no torch here, so task discovery stays cheap."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..options import OptionsBase

#: Who fits the heads: ``torch`` (``compeval.training``, batched, on the run's device) or scikit-learn.
Trainer = Literal["torch", "sklearn"]


class TrainerSettings(OptionsBase):
    """Frozen, no unknown names, finite numbers; through task options, errors name the option."""


#: The version of the MLP heads' arithmetic (``training/mlp.py``), the version of every task that trains them:
#: a stored result whose heads trained with other arithmetic is recomputed (a different rounding of Adam's
#: step moves where a head meets scikit-learn's stopping rule, and so its predictions).
MLP_HEADS_VERSION = "2"


class AdamSettings(TrainerSettings):
    """scikit-learn's ``MLPClassifier``/``MLPRegressor`` defaults (adam) and stopping rule: no
    improvement by ``tol`` for more than ``n_iter_no_change`` epochs, or ``max_iter`` epochs."""

    max_iter: int = Field(200, ge=1)  # epochs
    # stop on the score of a held-out validation_fraction instead of the training loss
    early_stopping: bool = False
    tol: float = Field(1e-4, ge=0)  # loss improvement that counts
    n_iter_no_change: int = Field(10, ge=1)  # epochs without it before stopping
    lr: float = Field(1e-3, gt=0)  # Adam's learning rate (scikit-learn's learning_rate_init)
    alpha: float = Field(1e-4, ge=0)  # L2 penalty
    batch_size: int = Field(200, ge=1)  # clipped to the number of training rows
    validation_fraction: float = Field(0.1, gt=0, lt=1)  # held out when early_stopping


class LBFGSSettings(TrainerSettings):
    """Each fit runs until its gradient's Euclidean norm is ≤ ``tol`` (scikit-learn's lbfgs: its
    largest entry), or ``max_iter`` iterations. The papers fix no cap, so 1,000 must not change a score: the
    default tasks give the same C, predictions and accuracies at 1,000 as at 10,000 (tests/training/test_caps.py,
    docs/probing.md). A result counts fits stopped at the cap (``counts.fitted…unconverged``)."""

    # stop once the gradient's norm is at most this
    tol: float = Field(1e-8, gt=0)
    # iterations at most (a fit stopped here is counted as unconverged)
    max_iter: int = Field(1_000, ge=1)


class EarlyStopping(TrainerSettings):
    """Adam on mini-batches, stopped after ``patience`` epochs without a better validation score."""

    # epochs at most
    max_epochs: int = Field(500, ge=1)
    patience: int = Field(20, ge=1)  # epochs without a better validation score before stopping
    # items per mini-batch
    batch_size: int = Field(32, ge=1)
    lr: float = Field(1e-3, gt=0)  # Adam's learning rate


def trainer_record(device, trainer: Trainer = "torch", *, named: bool = True) -> dict:
    """What a result records of its heads' trainer (``counts["trainer"]``); ``named=False``: the
    task's params name it."""
    return {**({"name": trainer} if named else {}), "device": str(device),
            "dtype": "float32" if trainer == "torch" else "as input (float32)"}
