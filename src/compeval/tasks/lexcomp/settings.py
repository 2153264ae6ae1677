"""Grid choices and the heads' fixed architecture, kept free of torch so that task discovery stays cheap.
The trainer's settings are ``compeval.training.settings.EarlyStopping``."""
from __future__ import annotations

ENCODERS = ("none", "bilstm", "attention")
LAYERS = ("top", "mix")
#: Dropout of every head (the paper's AllenNLP configurations).
DROPOUT = 0.2
