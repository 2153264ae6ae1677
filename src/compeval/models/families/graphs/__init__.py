"""Graph models: AMR loading by sentence text, AMR-CN, SMATCH, the WL kernel, spaCy dependency graphs."""
from .metrics import flatten_paths, smatch_f1, wl_features, wl_similarity
from .sources import DependencyGraphs, GraphTable, dependency_penman, load_amr_file, load_released_amrs

__all__ = ["DependencyGraphs", "GraphTable", "dependency_penman", "flatten_paths", "load_amr_file",
           "load_released_amrs", "smatch_f1", "wl_features", "wl_similarity"]

from . import models  # noqa: E402,F401  (registers the graph families)
