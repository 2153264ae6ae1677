"""Plan and execute model × task jobs."""
from .runner import JobOutcome, Reporter, RunSummary, run

__all__ = ["JobOutcome", "Reporter", "RunSummary", "run"]
