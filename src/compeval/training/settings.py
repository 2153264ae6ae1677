"""Trainer settings, declared once: each default and range lives on the trainer it configures.

``AdamSettings`` (the batched MLPs of ``training.mlp``), ``LBFGSSettings`` (the cross-validated logistic
regressions of ``training.logreg``) and ``EarlyStopping`` (the validation-stopped loop of ``training.loop``)
are pydantic models. Task options nest them (``ClassifierOptions.mlp``, ``LexcompOptions.training``): the
task's CLI names map onto their fields, its recorded params hold each setting once, and a task that wants
another default (the probes' 700 epochs, the 2018 paper's) says so in one place. The device is not a setting: the
trainers take it as an argument at fit time. No torch here, so task discovery stays cheap.
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..options import OptionsBase

#: Who fits the heads: ``torch`` (``compeval.training``, batched, on the run's device) or scikit-learn.
Trainer = Literal["torch", "sklearn"]


class TrainerSettings(OptionsBase):
    """Base of the trainers' settings, on the one options base (``compeval.options``): frozen, no unknown
    names, finite numbers. Users set them through task options, whose one-line errors name the option
    (``mlp_max_iter``); built directly, a bad value is pydantic's ``ValidationError`` naming the field."""


class AdamSettings(TrainerSettings):
    """scikit-learn's ``MLPClassifier``/``MLPRegressor`` defaults (solver adam) and its stopping rule: stop
    once the training loss (or, with ``early_stopping``, the validation score on a held-out
    ``validation_fraction``) has not improved by ``tol`` for more than ``n_iter_no_change`` epochs, or
    after ``max_iter`` epochs."""

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
    """The logistic regressions' solver: each fit runs until the Euclidean norm of its gradient is ≤ ``tol``
    (scikit-learn's ``lbfgs``: its largest entry), or ``max_iter`` iterations.

    ``max_iter`` is 1,000. The papers fix no cap, only the regularised optimum, so the cap must not change a
    score: the preconditioned solver brings a well-posed fit to 1e-8 in ≤ 150 iterations, and on the default
    run's models the default tasks give the same C, predictions and accuracies at 1,000 as at 10,000
    (tests/training/test_caps.py; docs/probing.md). A fit still running at 1,000 sits on a flat,
    near-separable objective (folds of sentences whose features cannot tell the labels apart, as
    stop-word-free GloVe on active/passive pairs). A result counts its fits that stopped at the cap
    (``counts.fitted…unconverged``)."""

    # stop once the gradient's norm is at most this
    tol: float = Field(1e-8, gt=0)
    # iterations at most (a fit stopped here is counted as unconverged)
    max_iter: int = Field(1_000, ge=1)


class EarlyStopping(TrainerSettings):
    """Adam on mini-batches, stopped on a validation score (``training.loop.train``): at most
    ``max_epochs`` epochs, ``patience`` epochs without a better score before stopping."""

    # epochs at most
    max_epochs: int = Field(500, ge=1)
    patience: int = Field(20, ge=1)  # epochs without a better validation score before stopping
    # items per mini-batch
    batch_size: int = Field(32, ge=1)
    lr: float = Field(1e-3, gt=0)  # Adam's learning rate


def trainer_record(device, trainer: Trainer = "torch", *, named: bool = True) -> dict:
    """What a result records of the trainer that fitted its heads (``counts["trainer"]``): its name (unless
    ``named=False``: the task's params name it), the run's device and the arithmetic."""
    return {**({"name": trainer} if named else {}), "device": str(device),
            "dtype": "float32" if trainer == "torch" else "as input (float32)"}
