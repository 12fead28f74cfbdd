"""Trace analysis: the paper's characterization statistics (``characterize``) and figures."""

from acmesim.analysis.characterize import (
    ComparisonRow,
    arrival_stats,
    characterize,
    compare,
    comparison_summary,
)

__all__ = ["ComparisonRow", "arrival_stats", "characterize", "compare", "comparison_summary"]
