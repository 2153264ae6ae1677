"""Metrics shared by suites: correlations, bootstrap intervals (AUC, ranks and paired tests join here)."""
from .bootstrap import DEFAULT_RESAMPLES, MAX_RESAMPLES, MIN_RESAMPLES, bootstrap_ci, mean_ci, percentile_interval, resample_indices
from .ranking import normalised_rank, normalised_ranks, roc_auc, roc_auc_ci, roc_auc_rows
from .correlation import pearson, pearson_rows, spearman, spearman_resampled, spearman_rows
from ..vectors import cosine_rows, unit_rows

__all__ = ["normalised_rank", "normalised_ranks", "roc_auc", "roc_auc_ci", "roc_auc_rows", "DEFAULT_RESAMPLES", "MAX_RESAMPLES", "MIN_RESAMPLES", "bootstrap_ci", "mean_ci", "percentile_interval", "resample_indices", "pearson", "pearson_rows",
           "spearman", "spearman_resampled", "spearman_rows", "cosine_rows", "unit_rows"]
