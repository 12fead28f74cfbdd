"""The column map of the ``csv`` trace format: which file column holds each normalized field.

Its own light module (no pandas), since the ``file`` trace source declares it as an option and
``acmesim replay --help`` lists it without reading a trace. ``acmesim.trace.loaders.generic``
reads files with it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from acmesim.core.errors import ConfigError


@dataclasses.dataclass
class CsvColumns:
    """The file column that holds each normalized field (``None``: the file has none)."""

    submit_time: str | None = None
    """submission time: ISO 8601 text, or a number of ``time_unit`` from ``epoch`` (required)"""
    start_time: str | None = None
    """start time (absent: the submission time)"""
    end_time: str | None = None
    """end time (this or ``duration`` is required)"""
    duration: str | None = None
    """run time in ``time_unit`` units (this or ``end_time`` is required)"""
    gpu_num: str | None = None
    """GPUs of the job (required)"""
    node_num: str | None = None
    """nodes of the job (absent: 0, not recorded)"""
    cpu_num: str | None = None
    """CPU threads of the job (absent: 0)"""
    job_id: str | None = None
    """job id (absent: csv-<file line>)"""
    user: str | None = None
    """user id (absent: default_user)"""
    type: str | None = None
    """job type (absent: default_type)"""
    state: str | None = None
    """final state (absent: default_state)"""

    @classmethod
    def of(cls, value: CsvColumns | Mapping[str, Any] | None) -> CsvColumns:
        """A column map from a mapping (unknown keys are a ``ConfigError``)."""
        if isinstance(value, CsvColumns):
            return value
        given = dict(value or {})
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ConfigError(f"trace format 'csv': unknown column key(s) {', '.join(unknown)}; "
                              f"valid keys: {', '.join(known)}")
        bad = {k: v for k, v in given.items() if v is not None and not isinstance(v, str)}
        if bad:
            raise ConfigError(f"trace format 'csv': column names must be text, got {bad}")
        return cls(**{k: v or None for k, v in given.items()})

    def mapped(self) -> dict[str, str]:
        """Normalized field -> file column, for the fields the file has."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if getattr(self, f.name)}


__all__ = ["CsvColumns"]
