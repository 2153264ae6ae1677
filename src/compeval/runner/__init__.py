"""Plan and execute model × task jobs (in process, or as Ray tasks with ``executor="ray"``)."""
from .executors import ExecutionReport, Executor, LocalExecutor, make_executor
from .jobs import Job, JobOutcome, Plan, Reporter, RunContext, RunSummary
from .runner import plan, run

__all__ = ["ExecutionReport", "Executor", "Job", "JobOutcome", "LocalExecutor", "Plan", "Reporter", "RunContext",
           "RunSummary", "make_executor", "plan", "run"]
