"""The device option (``auto|cpu|cuda[:N]|mps``) shared by every trainer, checked before any work.

Adapter point for the runner: a task that trains heads reads ``task_device(self)``, i.e. its ``device``
attribute (the run's device, set by the runner from its run context) or ``cpu``.
"""
from __future__ import annotations

from typing import Any

from ..errors import SpecError


def task_device(task: Any) -> str:
    """The device a task's heads train on: ``task.device`` when the runner set one, else ``cpu``."""
    return getattr(task, "device", None) or "cpu"


def resolve_device(spec: str | None = "cpu"):
    """A ``torch.device`` for ``spec``; a device that is not present is a one-line error naming the option."""
    import torch

    spec = (spec or "cpu").strip().lower()
    if spec == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        return torch.device("mps" if mps is not None and mps.is_available() else "cpu")
    try:
        dev = torch.device(spec)
    except (RuntimeError, ValueError):
        raise SpecError(f"device={spec!r}: choose auto, cpu, cuda, cuda:N or mps") from None
    if dev.type == "cpu":
        return dev
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise SpecError(f"device={spec!r}: no CUDA device is present (use device=cpu or auto)")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise SpecError(f"device={spec!r}: only {torch.cuda.device_count()} CUDA device(s) present")
        return dev
    if dev.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise SpecError(f"device={spec!r}: no MPS device is present (use device=cpu or auto)")
        return dev
    raise SpecError(f"device={spec!r}: choose auto, cpu, cuda, cuda:N or mps")
