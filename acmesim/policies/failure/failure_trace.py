"""Read a failure trace CSV: one fault per row, validated with file/line/column errors.

Format (UTF-8 CSV, header on line 1):

| column | required | meaning |
|---|---|---|
| ``time`` | yes | seconds since the simulation start, a finite number >= 0 |
| ``node`` | yes | id of the node that failed (a ``switch_failure`` takes its leaf switch) |
| ``kind`` | yes | one of the failure kinds (``acmesim.policies.failure.kinds``) |
| ``gpu`` | no | GPU index within the node (GPU-scope kinds; drawn when empty) |
| ``detection_delay`` | no | seconds until the job observes the fault (kind default when empty) |
| ``repair_time`` | no | seconds out of service (drawn from the kind's lognormal when empty) |

Other columns are ignored. Rows may come in any order; they are sorted by time (stable).
"""

from __future__ import annotations

import csv
import dataclasses
import math
import os
from typing import Literal, overload

from acmesim.core.errors import TraceError

REQUIRED_COLUMNS: tuple[str, ...] = ("time", "node", "kind")
OPTIONAL_COLUMNS: tuple[str, ...] = ("gpu", "detection_delay", "repair_time")


@dataclasses.dataclass(frozen=True)
class TraceFault:
    """One validated row: its file line, time, node, kind and optional fields (None = draw)."""

    line: int
    time: float
    node: str
    kind: str
    gpu: int | None
    detection_delay: float | None
    repair_time: float | None


def read_failure_trace(path: str | os.PathLike[str], kinds: list[str]) -> list[TraceFault]:
    """Parse and validate the failure trace at ``path``; ``kinds`` are the accepted kinds."""
    name = str(path)
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return _read_rows(name, csv.DictReader(handle), kinds)
    except FileNotFoundError:
        raise TraceError(name, "failure trace file not found") from None
    except UnicodeDecodeError as exc:
        raise TraceError(name, f"not a UTF-8 text file ({exc.reason})") from None
    except csv.Error as exc:
        raise TraceError(name, f"malformed CSV ({exc})") from None


def _read_rows(path: str, reader: csv.DictReader, kinds: list[str]) -> list[TraceFault]:
    """Validate the header, then every row, keeping file line numbers."""
    header = [c.strip() for c in reader.fieldnames or []]
    if not header:
        raise TraceError(path, "empty failure trace", expected="a header line 'time,node,kind'")
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise TraceError(path, f"missing column(s) {', '.join(missing)}", line=1,
                         value=",".join(header), expected="columns time, node, kind")
    reader.fieldnames = header
    faults = [_parse_row(path, reader.line_num, row, kinds) for row in reader]
    return sorted(faults, key=lambda f: f.time)


def _parse_row(path: str, line: int, row: dict, kinds: list[str]) -> TraceFault:
    """One row as a ``TraceFault``; ``TraceError`` naming the bad column otherwise."""
    if None in row:
        raise TraceError(path, "more fields than header columns", line=line)
    time = _number(path, line, row, "time", required=True)
    node = (row.get("node") or "").strip()
    if not node:
        raise TraceError(path, "empty node id", line=line, column="node",
                         expected="the id of a cluster node")
    kind = (row.get("kind") or "").strip()
    if kind not in kinds:
        raise TraceError(path, "unknown failure kind", line=line, column="kind", value=kind,
                         expected=f"one of {', '.join(kinds)}")
    gpu = _number(path, line, row, "gpu", required=False)
    if gpu is not None and gpu != int(gpu):
        raise TraceError(path, "GPU index must be an integer", line=line, column="gpu",
                         value=row["gpu"], expected="an integer >= 0")
    return TraceFault(
        line, time, node, kind, None if gpu is None else int(gpu),
        _number(path, line, row, "detection_delay", required=False),
        _number(path, line, row, "repair_time", required=False),
    )


@overload
def _number(path: str, line: int, row: dict, column: str, *, required: Literal[True]) -> float:
    ...


@overload
def _number(path: str, line: int, row: dict, column: str, *, required: bool) -> float | None:
    ...


def _number(path: str, line: int, row: dict, column: str, *, required: bool) -> float | None:
    """Column ``column`` as a finite float >= 0 (None when optional and empty)."""
    text = (row.get(column) or "").strip()
    if not text:
        if required:
            raise TraceError(path, f"empty {column}", line=line, column=column,
                             expected="a number of seconds >= 0")
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise TraceError(path, f"bad {column}", line=line, column=column, value=text,
                         expected="a finite number >= 0")
    return value
