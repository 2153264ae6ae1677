"""Syntactic-invariance suite (Cheung & Penn 2012): relation classification and restricted QA."""

from . import tasks  # noqa: F401  (registers the suite's tasks on import)
