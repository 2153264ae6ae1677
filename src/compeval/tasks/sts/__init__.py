"""STS suite: Spearman against human similarity ratings (STS3k and the comparison sets)."""
from . import tasks  # noqa: F401  (registers the suite's tasks on import)
