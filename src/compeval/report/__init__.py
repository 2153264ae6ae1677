"""The HTML report of a results folder (``build_report``) and its table exports (``leaderboard_frame``,
``ranking_frame``: pandas DataFrames).
"""
from .build import ReportInfo, build_report, paired_comparisons
from .ranking import ranking_frame
from .tables import leaderboard_frame, leaderboard_text

__all__ = ["ReportInfo", "build_report", "leaderboard_frame", "leaderboard_text", "paired_comparisons",
           "ranking_frame"]
