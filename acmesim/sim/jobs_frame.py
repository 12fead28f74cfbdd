"""Build the result tables of a finished simulation (once, vectorized where it matters)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acmesim.results.recorders import JobRecorder
from acmesim.results.schema import JOBS
from acmesim.sim.trace_input import JobTable


def cpu_node_name(index: int) -> str:
    """The name of CPU-only node ``index``."""
    return f"c{index:02d}"


def jobs_frame(table: JobTable, recorder: JobRecorder, gpu_names: tuple[str, ...]) -> pd.DataFrame:
    """The jobs table (schema ``JOBS``), one row per simulated job in submission order."""
    submit = np.asarray(table.submit, dtype=float)
    start = np.asarray(recorder.start, dtype=float)
    end = np.asarray(recorder.end, dtype=float)
    nodes = [
        gpu_names[grants[0][0]] if len(grants) == 1 and pool == "gpu"
        else ";".join(gpu_names[n] if pool == "gpu" else cpu_node_name(n) for n, _ in grants)
        for grants, pool in zip(recorder.grants, table.pool, strict=True)
    ]
    frame = pd.DataFrame({
        "job_id": table.job_id, "user": table.user, "type": table.type,
        "state": recorder.state, "pool": table.pool,
        "gpu_num": np.asarray(table.gpu_num, dtype=np.int64),
        "node_num": np.asarray(table.node_num, dtype=np.int64),
        "cpu_num": np.asarray(table.cpu_num, dtype=np.int64),
        "submit_time": submit, "start_time": start, "end_time": end,
        "queue_delay": start - submit,
        "run_time": np.asarray(recorder.held, dtype=float),
        "jct": end - submit,
        "recorded_start_time": np.asarray(table.start, dtype=float),
        "recorded_run_time": np.asarray(table.run_time, dtype=float),
        "preemptions": np.asarray(recorder.preemptions, dtype=np.int64),
        "failures": np.asarray(recorder.failures, dtype=np.int64),
        "lost_gpu_time": np.asarray(recorder.lost_gpu_time, dtype=float),
        "restarts": np.asarray(recorder.restarts, dtype=np.int64),
        "checkpoint_overhead": np.asarray(recorder.checkpoint_overhead, dtype=float),
        "recovery_wait": np.asarray(recorder.recovery_wait, dtype=float),
        "work_done": np.asarray(recorder.work_done, dtype=float),
        "nodes": nodes,
        "energy_kwh": np.full(len(nodes), np.nan),
    })
    return frame[JOBS.names]
