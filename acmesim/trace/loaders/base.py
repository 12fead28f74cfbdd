"""The trace-format plug-in interface and its registry.

A format is one class in its own module of this package, registered with
``@TRACE_FORMATS.register("name", "alias")``. It declares the header columns that identify it
(``signature``), the columns it needs (``required``), which raw columns are numeric, and turns a
``RawTrace`` into ``JobColumns``: the normalized fields plus the format's own validation checks.
Checks that hold for every format (time order, states, duplicate ids, cluster size) live in
``acmesim.trace.loaders.reader``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from acmesim.core.errors import ConfigError
from acmesim.core.registry import NoOptions, Registry
from acmesim.jobs.checks import Check
from acmesim.trace.loaders.csvfile import RawTrace


@dataclasses.dataclass
class JobColumns:
    """A format's reading of a trace: normalized columns (unvalidated) plus its checks.

    Times are timezone-aware UTC Series (NaT where missing); counts are float64 arrays (NaN
    where missing) that the reader casts to int64 once bad rows are gone, unless the format
    says its counts are fractional. ``state`` holds the source's states already mapped to the
    Acme final states (unmapped ones kept as they are, so they fail validation visibly).
    """

    job_id: pd.Series
    user: pd.Series
    type: pd.Series
    state: pd.Series
    submit_time: pd.Series
    start_time: pd.Series
    end_time: pd.Series
    gpu_num: np.ndarray
    node_num: np.ndarray
    cpu_num: np.ndarray
    extras: dict[str, Any] = dataclasses.field(default_factory=dict)
    checks: list[Check] = dataclasses.field(default_factory=list)
    raw_state: pd.Series | None = None


@runtime_checkable
class TraceFormatProtocol(Protocol):
    """What the trace reader calls on a format (``format=NAME``, registry ``TRACE_FORMATS``).

    Built as ``cls(config)``. For auto-detection the reader asks every format's ``matches``
    (the largest matching ``signature`` wins). It then checks the ``required`` columns are in
    the header (else names ``expected_header()``), parses the ``numeric`` columns as numbers,
    calls ``read`` and applies the format's checks with those every format shares, which name
    the ``state_column``, ``id_column`` and the file columns of ``time_columns``; counts stay
    fractional only if ``fractional_counts``.
    """

    description: ClassVar[str]
    """One line for ``known_formats()`` and the help."""
    signature: ClassVar[frozenset[str]]
    """Header columns that identify the format (empty: never auto-detected)."""
    fractional_counts: ClassVar[bool]
    """True when GPU/CPU/node counts may be fractional (kept as floats)."""
    required: tuple[str, ...]
    """Columns the header must have."""
    numeric: frozenset[str]
    """Raw columns parsed as numbers."""
    state_column: str
    """File column of the final state (named in error messages)."""
    id_column: str
    """File column of the job id (named in error messages)."""
    time_columns: dict[str, str]
    """Normalized time -> the file column it comes from (named in error messages)."""

    def read(self, raw: RawTrace) -> JobColumns:
        """Interpret the parsed rows of ``raw`` as normalized job columns plus checks."""
        ...

    @classmethod
    def matches(cls, header: list[str]) -> bool:
        """True when the header identifies this format."""
        ...

    def expected_header(self) -> str:
        """What the header should hold, for the error naming a missing column."""
        ...


class TraceFormat(TraceFormatProtocol):
    """Base class of trace formats: how to recognise a file and read its rows."""

    description: ClassVar[str] = ""
    signature: ClassVar[frozenset[str]] = frozenset()
    required: tuple[str, ...] = ()
    numeric: frozenset[str] = frozenset()
    fractional_counts: ClassVar[bool] = False
    state_column: str = "state"
    id_column: str = "job_id"
    time_columns: dict[str, str] = {
        "submit_time": "submit_time", "start_time": "start_time", "end_time": "end_time"}
    """Normalized time -> the file column it comes from (named in error messages)."""
    registry_name: str
    """(``required``, ``numeric``, ``state_column``, ``id_column`` and ``time_columns`` may be
    set per instance by a format whose columns come from its options, such as ``csv``.)"""

    Config: ClassVar[type] = NoOptions

    def __init__(self, config: Any = None) -> None:
        self.config = config if config is not None else self.Config()

    def read(self, raw: RawTrace) -> JobColumns:
        """Interpret the parsed rows of ``raw`` as normalized job columns."""
        raise NotImplementedError

    @classmethod
    def matches(cls, header: list[str]) -> bool:
        """True when every signature column is in ``header`` (never for a format without one)."""
        return bool(cls.signature) and cls.signature <= set(header)

    def expected_header(self) -> str:
        """What the header should hold, for the error naming a missing column."""
        return f"the {self.registry_name} header " + ",".join(self.required)


@dataclasses.dataclass(frozen=True)
class LocalTimeConfig:
    """Options of a format whose timestamps carry no UTC offset."""

    timezone: str = "UTC"
    """IANA zone the file's naive timestamps are in (the files do not say; UTC by default)."""

    def __post_init__(self) -> None:
        try:
            pd.Timestamp("2020-01-01").tz_localize(self.timezone)
        except Exception:  # noqa: BLE001 - any failure means the zone name is unusable
            raise ConfigError(f"unknown time zone {self.timezone!r}; use an IANA name "
                              "such as 'UTC' or 'Asia/Shanghai'") from None


TRACE_FORMATS: Registry[TraceFormat] = Registry(
    "trace format", package="acmesim.trace.loaders"
)
"""Every known trace format by name; a new format is one new module in this package."""


def format_signatures() -> Mapping[str, frozenset[str]]:
    """Format name -> the header columns that identify it."""
    return {name: TRACE_FORMATS.get(name).signature for name in TRACE_FORMATS.names()}
