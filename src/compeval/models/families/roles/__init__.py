"""Hybrid role models: role-parse sources, the spaCy role labeler and the VerbNet-CN style role model."""
from .model import ALIGNMENTS, PAPER_WEIGHTS, RoleModel, combine_role_similarities, role_comparisons
from ....linguistics.roles import ROLES, ParseTable, clean_parse, load_hand_parses, normalize_text

__all__ = ["ALIGNMENTS", "PAPER_WEIGHTS", "ROLES", "ParseTable", "RoleModel", "clean_parse",
           "combine_role_similarities", "load_hand_parses", "normalize_text", "role_comparisons"]
