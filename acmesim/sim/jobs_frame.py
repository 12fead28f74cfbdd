"""Build the result tables of a finished simulation (once, vectorized where it matters)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from acmesim.jobs.fields import OUTPUT_FIELDS, named
from acmesim.results.recorders import JobRecorder
from acmesim.sim.texts import TEXT_DTYPE
from acmesim.sim.trace_input import JobTable


def cpu_node_name(index: int) -> str:
    """The name of CPU-only node ``index``."""
    return f"c{index:02d}"


def jobs_frame(table: JobTable, recorder: JobRecorder, gpu_names: tuple[str, ...]) -> pd.DataFrame:
    """The jobs table (schema ``JOBS``), one row per simulated job in submission order.

    Each column comes from where its declaration (``acmesim.jobs.OUTPUT_FIELDS``) says: the job
    table for recorded and derived fields, the recorder for modeled outcomes, or a rule of its
    own below for the rest. Number columns are the job table's and the recorder's own buffers
    (no copy: the run is over when the table is built); text columns are made from the compact
    columns without a Python string per row.
    """
    submit = np.asarray(table.submit, dtype=float)
    start = recorder.column("start")
    end = recorder.column("end")
    computed = {
        "queue_delay": lambda: start - submit,
        "jct": lambda: end - submit,
        "nodes": lambda: node_names(table, recorder, gpu_names),
        "energy_kwh": lambda: np.full(len(table), np.nan),  # filled in by the power model
    }
    columns = {}
    for f in OUTPUT_FIELDS:
        if f.name in computed:
            columns[f.output] = computed[f.name]()
        elif f.recorder is not None:
            columns[f.output] = (recorder.state if f.kind == "str"
                                 else recorder.column(f.recorder))
        elif f.kind == "str":
            columns[f.output] = getattr(table, named(f.table)).to_pandas()
        else:
            columns[f.output] = np.asarray(getattr(table, named(f.table)), dtype=DTYPES[f.kind])
    return pd.DataFrame(columns, copy=False)


DTYPES = {"int": np.int64, "float": np.float64}


def node_names(table: JobTable, recorder: JobRecorder, gpu_names: tuple[str, ...]) -> Any:
    """Each job's nodes (``;``-joined names; empty without a grant) as a text column: a code per
    job into the GPU node names, ``""`` and the joined names of the jobs on several nodes (or on
    CPU nodes), taken by arrow (a Python string only for those jobs)."""
    codes = np.frombuffer(recorder.node, dtype=np.int32).astype(np.int64)
    codes[codes < 0] = len(gpu_names)  # -1: no single GPU node
    joined = []
    for k, (i, ids) in enumerate(recorder.nodes_multi.items()):
        gpu = table.pool[i] == "gpu"
        joined.append(";".join(gpu_names[n] if gpu else cpu_node_name(n) for n in ids))
        codes[i] = len(gpu_names) + 1 + k
    values = pa.array([*gpu_names, "", *joined], type=pa.large_string())
    return pd.array(values.take(pa.array(codes)), dtype=TEXT_DTYPE)
