"""Typed, versioned results and their storage."""
from .schema import SCHEMA_VERSION, DataProvenance, PublishedScore, Score, TaskInfo, TaskResult
from .store import ResultStore, result_rows, results_frame

__all__ = ["SCHEMA_VERSION", "DataProvenance", "PublishedScore", "Score", "TaskInfo", "TaskResult", "ResultStore", "result_rows",
           "results_frame"]
