"""Count-based distributional models trained from a user's corpus (``models.md`` §6; Cheung & Penn's set).

``train_distributional(kind, corpus_paths, out_path, ...)`` trains and saves one; the model spec
``dist:PATH[,compose=add|mult]`` loads it as an encoder behind the usual protocol.
"""
from .models import load_distributional
from .training import KINDS, train_distributional

__all__ = ["KINDS", "load_distributional", "train_distributional"]

from . import family  # noqa: E402,F401  (registers dist:)
