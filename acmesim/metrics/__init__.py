"""Result tables: schemas declared once, collectors fed by the engine, summary and writers."""

from acmesim.metrics.schema import JOBS, SUMMARY, TABLES, UTILIZATION, Column, TableSchema

__all__ = ["JOBS", "SUMMARY", "TABLES", "UTILIZATION", "Column", "TableSchema"]
