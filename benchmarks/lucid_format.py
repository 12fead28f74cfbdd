"""A normalized job table as the input of the Lucid simulator (S-Lab-System-Group/Lucid).

What Lucid's ``simulation/`` (read at commit 63685a3; nothing of it is copied here) expects
when started as ``python simulator.py -e Venus_Sept -t DIR -s fifo -p consolidate``:

- ``DIR/vc_config.csv``: one row per virtual cluster, ``,num`` header, nodes of 8 GPUs each;
  here one VC (``VC_NAME``) with all the cluster's nodes.
- ``DIR/cluster_full_log.csv``: one row per job with the columns ``COLUMNS``; ``submit_time``
  is a date that Lucid turns into whole seconds (``int(datetime.timestamp(...))``, so local
  time: run it with ``TZ=UTC``), measured from the first job submitted at or after
  ``LUCID_ORIGIN``; it then replays only the jobs of the experiment's window ``WINDOW`` and
  ``duration`` (whole seconds) per job. The other columns only feed its estimators and
  utilization logs; they get neutral values here.

So the converted trace starts with an *anchor* job at ``LUCID_ORIGIN`` (outside the window: it
only fixes Lucid's time origin) and the jobs follow from the window's start, keeping their
offsets. Lucid sorts the jobs by submit time with pandas' default (unstable) sort, so jobs
submitted in the same second may start in another order than acmesim's (which keeps the input
order). With ``preorder=True`` the k-th job of a second (in acmesim's order) is written k
microseconds into it: Lucid's sort then has no ties, and truncating to the second restores the
time. Every job must run at least 1 s (a zero-length job would never end in Lucid's loop).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

LUCID_ORIGIN = pd.Timestamp("2020-04-01 00:00:00")
"""Lucid's trace origin (``simulation/utils.py``, ``trace_process``: ``start``)."""
WINDOW = (pd.Timestamp("2020-09-01 00:00:00"), pd.Timestamp("2020-09-26 23:59:00"))
"""The jobs Lucid replays in experiment ``Venus_Sept`` (``utils.get_trace``, "Sept")."""
EXPERIMENT = "Venus_Sept"
"""The only experiment whose estimator files ship with Lucid (needed even for FIFO)."""
VC_NAME = "vcAcme"
"""The one virtual cluster of the converted trace."""
COLUMNS = ("job_id", "user", "vc", "jobname", "gpu_num", "cpu_num", "state", "submit_time",
           "duration", "dataset", "model", "batchsize", "amp", "speed", "gpu_util", "gmem_util",
           "gmem")
NEUTRAL = {"dataset": "none", "model": "none", "batchsize": 0, "amp": 0, "speed": 0,
           "gpu_util": 0, "gmem_util": 0, "gmem": 0}
"""Values of the columns FIFO + consolidate never read."""
SECOND = pd.Timedelta(seconds=1)


def check_whole_seconds(table: pd.DataFrame) -> None:
    """Reject a table Lucid's one-second loop cannot replay as acmesim does: submit times must
    be whole seconds, run times whole seconds >= 1, every job a GPU job."""
    checks = (
        ("submit_time", table["submit_time"] != table["submit_time"].dt.floor("s"),
         "a whole second"),
        ("run_time", (table["run_time"] < 1) | (table["run_time"] != np.round(table["run_time"])),
         "whole seconds >= 1"),
        ("gpu_num", table["gpu_num"] < 1, "at least 1 GPU"),
    )
    for column, bad, expected in checks:
        rows = np.flatnonzero(bad.to_numpy())
        if len(rows):
            row = int(rows[0])
            raise ValueError(f"job table row {row} (job_id {table['job_id'].iloc[row]!r}), "
                             f"column {column}: got {table[column].iloc[row]}, expected "
                             f"{expected}")


def partial_gangs(table: pd.DataFrame, gpus_per_node: int = 8) -> np.ndarray:
    """Rows of multi-node jobs whose GPUs are not a multiple of a node (placed differently:
    whole nodes in acmesim, whole nodes plus one partly used node in Lucid)."""
    gpus = table["gpu_num"].to_numpy()
    return np.flatnonzero((gpus > gpus_per_node) & (gpus % gpus_per_node != 0))


def lucid_table(table: pd.DataFrame, *, preorder: bool = False) -> pd.DataFrame:
    """Lucid's ``cluster_full_log.csv`` rows for ``table`` (GPU jobs in whole seconds, in
    submission order: ``check_whole_seconds``).

    Row 0 is the anchor job; job ``i`` of ``table`` is row ``i + 1`` with job id ``j{i}``.
    """
    if len(table) == 0:
        raise ValueError("the trace has no GPU jobs to convert")
    check_whole_seconds(table)
    if not table["submit_time"].is_monotonic_increasing:
        raise ValueError("the job table must be in submission order (acmesim's order, which "
                         "--preorder gives Lucid)")
    offset = table["submit_time"] - table["submit_time"].iloc[0]
    submit = WINDOW[0] + offset.to_numpy()
    last = submit.max()
    if last > WINDOW[1]:
        raise ValueError(f"the trace spans {offset.max()}, longer than Lucid's {EXPERIMENT} "
                         f"window {WINDOW[0]} .. {WINDOW[1]}: use fewer days (at most 25.99)")
    if preorder:
        rank = pd.Series(np.arange(len(table))).groupby(offset.to_numpy()).cumcount()
        submit = submit + pd.to_timedelta(rank.to_numpy(), unit="us")
    rows = pd.DataFrame({
        "job_id": [f"j{i}" for i in range(len(table))], "user": table["user"].astype(str),
        "vc": VC_NAME, "jobname": table["type"].astype(str),
        "gpu_num": table["gpu_num"].astype(np.int64), "cpu_num": table["cpu_num"].astype(np.int64),
        "state": "COMPLETED", "submit_time": submit,
        "duration": table["run_time"].astype(np.int64), **NEUTRAL})
    anchor = pd.DataFrame([{"job_id": "anchor", "user": "anchor", "vc": VC_NAME,
                            "jobname": "anchor", "gpu_num": 1, "cpu_num": 1,
                            "state": "COMPLETED", "submit_time": LUCID_ORIGIN, "duration": 1,
                            **NEUTRAL}])
    return pd.concat([anchor, rows], ignore_index=True)[list(COLUMNS)]


def write_lucid_input(table: pd.DataFrame, directory: Path, nodes: int, *,
                      preorder: bool = False) -> Path:
    """Write Lucid's two input files for ``table`` on ``nodes`` nodes into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    lucid_table(table, preorder=preorder).to_csv(
        directory / "cluster_full_log.csv", index=False, date_format="%Y-%m-%d %H:%M:%S.%f")
    pd.DataFrame({"num": [nodes]}, index=[VC_NAME]).to_csv(directory / "vc_config.csv")
    return directory


def lucid_queue_delays(log: pd.DataFrame) -> np.ndarray:
    """Queueing delay (s) of job ``j{i}`` at position ``i``, from Lucid's job log."""
    jobs = log[log["job_id"].astype(str) != "anchor"]
    position = jobs["job_id"].astype(str).str[1:].astype(np.int64).to_numpy()
    delays = np.full(len(jobs), np.nan)
    delays[position] = (jobs["start_time"] - jobs["submit_time"]).to_numpy(dtype=float)
    return delays
