"""Lexical composition suite (Shwartz & Dagan 2019): six tasks, Embed-Encode-Predict heads, majority baselines."""

from . import tasks  # noqa: F401  (registers the suite's tasks on import)
