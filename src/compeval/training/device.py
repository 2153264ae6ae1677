"""The trainers' device: the run's ``--device`` as the run context resolved it (``RunContext.torch_device()``:
``cpu``, ``cuda``, ``cuda:N`` or ``mps``), an argument at fit time, made a ``torch.device`` here.

Trainers never resolve a device (``compeval.context.resolve_device`` runs once per run, in the run
context): ``auto`` or any other unresolved name is a one-line error.
"""
from __future__ import annotations

import re
from contextlib import contextmanager

import torch

from ..errors import CompevalError

_RESOLVED = re.compile(r"^(cpu|cuda|cuda:\d+|mps)$")


def torch_device(device: str | torch.device = "cpu") -> torch.device:
    """A resolved device (``cpu|cuda|cuda:N|mps``, or a ``torch.device``) → ``torch.device``; anything else is
    a one-line ``CompevalError``."""
    if isinstance(device, torch.device):
        return device
    if not _RESOLVED.match(str(device)):
        raise CompevalError(f"trainer device {device!r}: give a resolved device (cpu, cuda, cuda:N or mps), "
                            "the run's RunContext.torch_device()")
    return torch.device(device)


#: Below this many floating-point operations per step a head trains on one thread. Each operation of a
#: step is a parallel region whose threads meet at its end; when other processes share the cores (a laptop,
#: a shared server, an HPC node), a descheduled sibling holds every such meeting for a scheduler time slice,
#: and a step of a few milliseconds of work takes many times as long. Measured on a shared 2-core machine:
#: a 64-wide probe took 10× the CPU time per step with two threads as with one, and a run of the
#: default probing tasks was more than 20× slower with other jobs on the machine (issue 36). Two threads
#: pay only when an operation's work dwarfs a time slice: ≥ 2e10 operations per step (about half a second
#: of one core), far above every head of the default run (an Ettinger 2018 probe's three batched MLPs on
#: 384-wide vectors: 6e8 per step). One thread also gives a head the same arithmetic under every executor.
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
