"""Trainer settings without torch: range checks that name the option, and the MLP (Adam) defaults."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import SpecError

TRAINERS = ("torch", "sklearn")


def check_positive(option: str, value: float) -> None:
    """One-line error naming ``option`` unless ``value`` > 0 (iterations, epochs, learning rates, …)."""
    if not value > 0:  # also rejects NaN
        raise SpecError(f"{option}={value}: must be > 0")


def check_trainer(value: str, option: str = "trainer") -> str:
    if value not in TRAINERS:
        raise SpecError(f"{option}={value!r}: choose one of {', '.join(TRAINERS)}")
    return value


def trainer_record(device, trainer: str = "torch") -> dict:
    """What a result records of the trainer that fitted its heads (``counts["trainer"]``)."""
    return {"name": trainer, "device": str(device),
            "dtype": "float32" if trainer == "torch" else "as input (float32)"}


def logreg_solver_record(trainer: str, device) -> dict:
    """How the probing logistic regressions were solved (their stopping rule differs between trainers)."""
    if trainer == "torch":
        from .logreg import solver_dtype
        from .device import torch_device

        return {"solver": "L-BFGS, preconditioned", "dtype": str(solver_dtype(torch_device(device))).split(".")[-1],
                "stop": "Euclidean norm of the gradient ≤ logreg_tol"}
    return {"solver": "scikit-learn lbfgs", "dtype": "float64",
            "stop": "largest gradient entry ≤ logreg_tol"}


@dataclass(frozen=True)
class AdamSettings:
    """scikit-learn's MLP defaults (solver adam) and its stopping rule: stop once the training loss
    (or, with ``early_stopping``, the validation score on a held-out ``validation_fraction``) has not
    improved by ``tol`` for more than ``n_iter_no_change`` epochs, or after ``max_iter`` epochs."""

    max_iter: int = 700
    tol: float = 1e-4
    n_iter_no_change: int = 10
    lr: float = 1e-3
    alpha: float = 1e-4
    batch_size: int = 200
    early_stopping: bool = False
    validation_fraction: float = 0.1

    def __post_init__(self) -> None:
        for name in ("max_iter", "lr", "batch_size", "n_iter_no_change"):
            check_positive(name, getattr(self, name))
        if self.tol < 0 or self.alpha < 0:
            raise SpecError(f"tol={self.tol}, alpha={self.alpha}: must be ≥ 0")
        if not 0 < self.validation_fraction < 1:
            raise SpecError(f"validation_fraction={self.validation_fraction}: must be in (0, 1)")
