"""Tasks: one interface (``base.Task``), one module or folder per suite, found by discovery."""
from .base import Task, TaskMetadata, TaskOutput
from .registry import get_tasks, list_tasks, register_task

__all__ = ["Task", "TaskMetadata", "TaskOutput", "get_tasks", "list_tasks", "register_task"]
