"""The trainers' device: the run's ``--device`` (``compeval.context``), as a ``torch.device``.

Tasks pass ``self.context.torch_device()``; the trainers accept any device string and resolve it here, so a
device this machine lacks is the same one-line error as for models (``compeval.context.resolve_device``).
"""
from __future__ import annotations

import torch

from ..context import resolve_device


def torch_device(spec: str | None = "cpu") -> torch.device:
    """``auto|cpu|cuda[:N]|mps`` → a present ``torch.device``, else a one-line ``CompevalError``."""
    return torch.device(resolve_device(spec or "cpu"))
