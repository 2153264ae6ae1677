"""Count-based distributional models trained from a user's corpus (``models.md`` §6):
``train_distributional`` trains one, ``dist:PATH[,compose=add|mult]`` loads it."""
from .models import load_distributional
from .training import KINDS, train_distributional

__all__ = ["KINDS", "load_distributional", "train_distributional"]

from . import family  # noqa: E402,F401  (registers dist:)
