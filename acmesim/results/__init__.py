"""Result tables: schemas declared once, collectors fed by the engine, summary and writers."""

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
