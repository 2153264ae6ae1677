"""The trainers' device: the run context resolves it once (``RunContext.torch_device()``); an unresolved
name such as ``auto`` is a one-line error here."""
from __future__ import annotations

import re
from contextlib import contextmanager

import torch

from ..errors import CompevalError

_RESOLVED = re.compile(r"^(cpu|cuda|cuda:\d+|mps)$")


def torch_device(device: str | torch.device = "cpu") -> torch.device:
    """``cpu|cuda|cuda:N|mps`` (or a ``torch.device``) → ``torch.device``; else a ``CompevalError``."""
    if isinstance(device, torch.device):
        return device
    if not _RESOLVED.match(str(device)):
        raise CompevalError(f"trainer device {device!r}: give a resolved device (cpu, cuda, cuda:N or mps), "
                            "the run's RunContext.torch_device()")
    return torch.device(device)


#: Below this many operations per step a head trains on one thread: with other processes on the cores, a
#: descheduled sibling thread holds every parallel region for a time slice (measured on a shared 2-core
#: machine: a 64-wide probe took 10× the CPU time per step on two threads). 2e10 is far above every default
#: head (an Ettinger 2018 probe: 6e8 per step). One thread also gives the same bits under every executor and
#: every load: a lone 412-wide head's products split differently on two threads and change its predictions.
#: Other free cores serve other jobs' heads (``runner/loop.py``, ``Task.staged``).
SMALL_STEP_FLOPS = 2e10


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
