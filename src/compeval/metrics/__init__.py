"""Metrics shared by suites: correlations, bootstrap intervals (AUC, ranks and paired tests join here)."""
from .bootstrap import DEFAULT_RESAMPLES, bootstrap_ci, mean_ci, percentile_interval, resample_indices
from .correlation import pearson, pearson_rows, spearman, spearman_resampled, spearman_rows

__all__ = ["DEFAULT_RESAMPLES", "bootstrap_ci", "mean_ci", "percentile_interval", "resample_indices", "pearson", "pearson_rows",
           "spearman", "spearman_resampled", "spearman_rows"]
