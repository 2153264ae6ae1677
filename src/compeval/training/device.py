"""The trainers' device: the run's ``--device`` (``compeval.context``), as a ``torch.device``.

Tasks pass ``self.context.torch_device()``; the trainers accept any device string and resolve it here, so a
device this machine lacks is the same one-line error as for models (``compeval.context.resolve_device``).
"""
from __future__ import annotations

from contextlib import contextmanager

import torch

from ..context import resolve_device


def torch_device(spec: str | None = "cpu") -> torch.device:
    """``auto|cpu|cuda[:N]|mps`` → a present ``torch.device``, else a one-line ``CompevalError``."""
    return torch.device(resolve_device(spec or "cpu"))


#: Below this many floating-point operations per step a head trains on one thread: for small matrices
#: the threads' synchronisation costs more than it saves (measured on a shared 2-core machine: a 64-wide
#: probe took 10× the CPU time per step with two threads as with one).
SMALL_STEP_FLOPS = 5e7


@contextmanager
def threads_for(flops_per_step: float, device: torch.device):
    """One CPU thread while small steps run on the CPU; the process's setting is restored afterwards."""
    if device.type != "cpu" or flops_per_step >= SMALL_STEP_FLOPS or torch.get_num_threads() == 1:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
