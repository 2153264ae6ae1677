"""Linguistic annotation shared by models and tasks: role parses (released files, a user's file) and the
spaCy role labeler. Both model families (the role and graph models) and tasks (structure) read these,
so they live below both; nothing here imports a model or a task."""
from .roles import ROLES, ParseTable, RoleParse, clean_parse, load_hand_parses, normalize_text

__all__ = ["ROLES", "ParseTable", "RoleParse", "clean_parse", "load_hand_parses", "normalize_text"]
