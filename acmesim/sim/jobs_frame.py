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
    start = recorder.column("start")
    end = recorder.column("end")
    frame = pd.DataFrame({
        "job_id": table.job_id, "user": table.user, "type": table.type,
        "state": recorder.state, "pool": table.pool,
        "gpu_num": np.asarray(table.gpu_num, dtype=np.int64),
        "node_num": np.asarray(table.node_num, dtype=np.int64),
        "cpu_num": np.asarray(table.cpu_num, dtype=np.int64),
        "submit_time": submit, "start_time": start, "end_time": end,
        "queue_delay": start - submit,
        "run_time": recorder.column("held"),
        "jct": end - submit,
        "recorded_start_time": np.asarray(table.start, dtype=float),
        "recorded_run_time": np.asarray(table.run_time, dtype=float),
        "preemptions": recorder.column("preemptions"),
        "failures": recorder.column("failures"),
        "lost_gpu_time": recorder.column("lost_gpu_time"),
        "restarts": recorder.column("restarts"),
        "checkpoint_overhead": recorder.column("checkpoint_overhead"),
        "recovery_wait": recorder.column("recovery_wait"),
        "work_done": recorder.column("work_done"),
        "nodes": node_names(table, recorder, gpu_names),
        "energy_kwh": np.full(len(table), np.nan),
    }, copy=True)
    return frame[JOBS.names]


def node_names(table: JobTable, recorder: JobRecorder, gpu_names: tuple[str, ...]) -> list[str]:
    """Each job's nodes (``;``-joined names; empty without a grant), by array lookups except
    for jobs on several nodes or CPU nodes."""
    names = np.asarray((*gpu_names, ""), dtype=object)  # index -1: no single GPU node
    nodes = names[np.frombuffer(recorder.node, dtype=np.int64)]
    for i, ids in recorder.nodes_multi.items():
        gpu = table.pool[i] == "gpu"
        nodes[i] = ";".join(gpu_names[n] if gpu else cpu_node_name(n) for n in ids)
    return nodes.tolist()
