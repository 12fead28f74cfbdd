"""Result files: deterministic CSV text and YAML, always written atomically."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from acmesim.core.atomic import atomic_write_csv, atomic_write_text
from acmesim.results.schema import TableSchema


def write_table(path: Path, frame: pd.DataFrame, schema: TableSchema) -> Path:
    """Write ``frame`` with exactly the schema's columns, in order (floats as shortest repr)."""
    if list(frame.columns) != schema.names:
        raise ValueError(f"{schema.file_name}: columns {list(frame.columns)} do not match the "
                         f"schema {schema.names}")
    atomic_write_csv(path, frame)
    return path


def write_summary(path: Path, row: Mapping[str, Any], schema: TableSchema) -> Path:
    """Write the one-row summary."""
    return write_table(path, pd.DataFrame([dict(row)], columns=schema.names), schema)


def write_yaml(path: Path, data: Mapping[str, Any]) -> Path:
    """Write ``data`` as block YAML in insertion order (deterministic)."""
    text = yaml.safe_dump(_plain(data), sort_keys=False, default_flow_style=False,
                          allow_unicode=True)
    atomic_write_text(path, text)
    return path


def _plain(value: Any) -> Any:
    """Mappings -> dicts, tuples -> lists, recursively (what safe_dump accepts)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
