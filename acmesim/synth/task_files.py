"""Task-DL and mixed traces on disk: the published Seren schema followed by the task columns.

Why this schema: the Helios flattened schema (``helios_trace.csv``) cannot carry what a task-DL
trace adds. Its reader (``loaders/helios.py``) writes every job's type as ``Other`` and keeps
only the ``cluster`` and ``vc`` columns, so the classes, search and study links and the GPU
utilization would be lost. The Seren reader (``loaders/acme.py``) keeps every column a file
adds after the published ones. So a trace with task columns is written as the 13 columns of
``trace_seren.csv`` (``formats.write_acme_csv`` conventions: +08:00 timestamps, ``duration =
end - start``), then the columns of ``taskmeta.EXTRA_COLUMNS`` that the table has:

``workload,task_group,task_stage,task_variant,parent_id,gpu_util``

``read_task_trace`` reads it back with ``load_trace`` and restores the extra columns' types, so
a generated table round-trips exactly (timestamps at the schema's one-second resolution).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from acmesim.core.atomic import atomic_open
from acmesim.core.errors import AcmesimError, TraceError
from acmesim.synth.taskmeta import EXTRA_COLUMNS
from acmesim.trace.formats import SEREN, format_acme_fields
from acmesim.trace.loaders import load_trace

INT_COLUMNS: frozenset[str] = frozenset({"task_stage"})
FLOAT_COLUMNS: frozenset[str] = frozenset({"gpu_util"})


def write_task_trace(jobs: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``jobs`` as the Seren schema plus its task columns, atomically."""
    fields = format_acme_fields(jobs, SEREN)
    for name in EXTRA_COLUMNS:
        if name in jobs.columns:
            fields[name] = _format_extra(jobs[name], name)
    with atomic_open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(",".join(fields) + "\n")
        if len(jobs):
            handle.write("\n".join(map(",".join, zip(*fields.values(), strict=True))))
            handle.write("\n")


def read_task_trace(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a trace written by ``write_task_trace`` (or a plain Seren file) as normalized jobs."""
    jobs = load_trace(path, format="seren")
    for name in EXTRA_COLUMNS:
        if name not in jobs.columns:
            continue
        if name in INT_COLUMNS or name in FLOAT_COLUMNS:
            jobs[name] = _parse_numbers(jobs[name], name, str(path))
        else:
            jobs[name] = jobs[name].fillna("").astype(str)
    return jobs


def _format_extra(values: pd.Series, name: str) -> list[str]:
    """One task column as CSV field texts (ints, float reprs, plain text; NaN -> empty)."""
    if name in FLOAT_COLUMNS:
        numbers = values.to_numpy(dtype=np.float64)
        return ["" if np.isnan(v) else repr(float(v)) for v in numbers.tolist()]
    if name in INT_COLUMNS:
        return [str(int(v)) for v in values.to_numpy(dtype=np.int64).tolist()]
    text = values.fillna("").astype(str)
    bad = text.str.contains(r'[",\r\n]', regex=True).to_numpy(dtype=bool)
    if bad.any():
        raise AcmesimError(f"column {name!r} value {text[bad].iloc[0]!r} holds a comma, quote "
                           "or line break; task columns must be plain text")
    return text.tolist()


def _parse_numbers(values: pd.Series, name: str, path: str) -> pd.Series:
    """A numeric task column; a non-number or out-of-range value is a ``TraceError``."""
    text = values.fillna("").astype(str)
    numbers = pd.to_numeric(text.where(text != "", None), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan)
    if name in INT_COLUMNS:
        bad = np.isnan(numbers) | (numbers != np.round(numbers))
        expected = "an integer"
    else:
        bad = (text != "").to_numpy() & (np.isnan(numbers) | (numbers < 0) | (numbers > 1))
        expected = "a fraction between 0 and 1 (or empty for CPU jobs)"
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise TraceError(path, f"bad {name} value", line=row + 2, column=name,
                         value=text.iloc[row], expected=expected)
    if name in INT_COLUMNS:
        return pd.Series(numbers.astype(np.int64), index=values.index)
    return pd.Series(numbers, index=values.index)
