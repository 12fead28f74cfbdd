"""Result tables: schemas declared once, recorders fed by the engine, summary, writers, run dirs."""

from acmesim.results.schema import (
    FAILURES,
    JOBS,
    SUMMARY,
    TABLES,
    UTILIZATION,
    Column,
    TableSchema,
)

__all__ = ["FAILURES", "JOBS", "SUMMARY", "TABLES", "UTILIZATION", "Column", "TableSchema"]
