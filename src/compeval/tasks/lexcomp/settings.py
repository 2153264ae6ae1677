"""Grid choices and training settings, kept free of torch so that task discovery stays cheap."""
from __future__ import annotations

from dataclasses import dataclass

ENCODERS = ("none", "bilstm", "attention")
LAYERS = ("top", "mix")


@dataclass
class TrainConfig:
    max_epochs: int = 500
    patience: int = 20
    batch_size: int = 32
    lr: float = 1e-3
    hidden: int = 100
    dropout: float = 0.2
