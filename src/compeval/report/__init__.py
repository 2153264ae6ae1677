"""The HTML report of a results folder and its table exports.

``build_report(results_dir, output)`` writes one self-contained HTML file: a leaderboard with 95%
intervals and published reference rows, one section of the papers' figures per suite present, paired
tests between adjacent ranks, and the provenance of every number. ``leaderboard_frame(results_dir)``
returns the leaderboard as a pandas DataFrame; ``ranking_frame(results_dir)`` the end-of-run ranking
(each suite's headline per model, the best marked).
"""
from .build import ReportInfo, build_report, paired_comparisons
from .ranking import ranking_frame
from .tables import leaderboard_frame, leaderboard_text

__all__ = ["ReportInfo", "build_report", "leaderboard_frame", "leaderboard_text", "paired_comparisons",
           "ranking_frame"]
