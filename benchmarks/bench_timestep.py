"""Time-stepped vs event-driven: FIFO + Lucid's consolidate placer, 26k jobs, 28 days, 880 GPUs.

The scale of the FIFO replay in the Lucid simulator (S-Lab-System-Group/Lucid, ``simulation/``):
26k GPU jobs submitted over 28 days on 110 nodes x 8 GPUs. Workload: the GPU jobs of
``generate_trace("seren", days, seed)`` that fit the cluster (at most 880 GPUs), thinned at
random (RNG stream ``"thin"``) to ``--jobs`` jobs; times in whole seconds (submit floored, run
time rounded, at least 1 s) so one-second stepping is exact. Every job is at most one node or a
multiple of 8 GPUs, where acmesim's gang model and Lucid's placer agree.

In one process, after a warm-up, it times the time-stepped reference
(``benchmarks/timestep_reference.py``) and ``acmesim.run.simulate(..., "fifo", "lucid")``,
counts jobs whose start seconds differ (and, for contrast, how many differ under acmesim's
default ``consolidate`` placement, which breaks ties differently), and prints wall and CPU
times and their ratios.

    python benchmarks/bench_timestep.py [--jobs 26000] [--days 28] [--nodes 110] [--seed 1]
                                        [--prefix-days D]

``--prefix-days D`` steps the reference only through the first D simulated days and
extrapolates its time linearly to the full span (printed as such; per-step cost grows with
the queue, so this underestimates it); start times are then compared for the jobs it started.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from timestep_reference import simulate_fifo

from acmesim.cluster.spec import ClusterSpec
from acmesim.core.rng import RngStreams
from acmesim.run import simulate
from acmesim.synth import generate_trace

SECOND = pd.Timedelta(seconds=1)


def workload(jobs: int, days: float, seed: int, capacity: int) -> pd.DataFrame:
    """``jobs`` GPU jobs of a synthetic Seren trace that fit ``capacity`` GPUs, whole seconds."""
    trace = generate_trace("seren", days, seed)
    gpu = trace[(trace["gpu_num"] > 0) & (trace["gpu_num"] <= capacity)].reset_index(drop=True)
    if len(gpu) < jobs:
        raise SystemExit(f"only {len(gpu)} GPU jobs fit {capacity} GPUs; lower --jobs")
    keep = np.sort(RngStreams(seed).stream("thin").choice(len(gpu), jobs, replace=False))
    table = gpu.iloc[keep].reset_index(drop=True)
    submit = table["submit_time"].dt.floor("s")
    run = np.maximum(1, np.round(table["run_time"].to_numpy())).astype(np.int64)
    table["submit_time"] = submit
    table["start_time"] = submit
    table["run_time"] = run.astype(float)
    table["end_time"] = submit + pd.to_timedelta(run, unit="s")
    table["node_num"] = np.maximum(1, table["gpu_num"] // 8)
    table["queue_time"] = 0.0
    return table.sort_values("submit_time", kind="stable").reset_index(drop=True)


def reference_rows(table: pd.DataFrame) -> list[tuple[int, int, int]]:
    """``(submit s, duration s, GPUs)`` per job, seconds since the first submission."""
    origin = table["submit_time"].min()
    submit = ((table["submit_time"] - origin) // SECOND).astype(np.int64).tolist()
    return list(zip(submit, table["run_time"].astype(np.int64).tolist(),
                    table["gpu_num"].astype(np.int64).tolist(), strict=True))


def timed(call):
    """``(result, wall s, CPU s)`` of ``call()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def count_mismatches(jobs: pd.DataFrame, job_ids: pd.Series, starts: list[int | None]) -> int:
    """Jobs the reference started whose acmesim start second differs."""
    acme = dict(zip(jobs["job_id"], jobs["start_time"], strict=True))
    return sum(1 for job_id, ref in zip(job_ids, starts, strict=True)
               if ref is not None and acme[job_id] != ref)


def describe(table: pd.DataFrame, spec: ClusterSpec, days: float) -> None:
    """Print the workload's size, shape and offered load."""
    sizes = table["gpu_num"].value_counts().sort_index()
    offered = float((table["gpu_num"] * table["run_time"]).sum()) / (spec.total_gpus
                                                                      * days * 86400)
    print(f"workload: {len(table):,} GPU jobs submitted over {days:g} days on {spec.nodes} "
          f"nodes x {spec.gpus_per_node} = {spec.total_gpus} GPUs; offered load "
          f"{offered:.2f}; max run {table['run_time'].max() / 86400:.1f} days")
    print("GPUs per job: " + ", ".join(f"{g}:{n}" for g, n in sizes.items()))


def main() -> None:
    """Build the workload, run both simulators, compare start times, print the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=26_000)
    parser.add_argument("--days", type=float, default=28.0)
    parser.add_argument("--nodes", type=int, default=110)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--prefix-days", type=float, default=None)
    args = parser.parse_args()
    spec = ClusterSpec(name="lucid880", nodes=args.nodes)
    table = workload(args.jobs, args.days, args.seed, spec.total_gpus)
    rows = reference_rows(table)
    describe(table, spec, args.days)
    simulate(table.head(50), spec, "fifo", "lucid")  # warm-up: imports and plug-in discovery

    result, acme_wall, acme_cpu = timed(lambda: simulate(table, spec, "fifo", "lucid"))
    span = result.summary["simulated_span"]
    until = None if args.prefix_days is None else int(args.prefix_days * 86400) - 1
    starts, ref_wall, ref_cpu = timed(lambda: simulate_fifo(rows, args.nodes, until=until))
    stepped = span + 1 if until is None else min(until + 1, span + 1)
    scale = (span + 1) / stepped

    compared = sum(ref is not None for ref in starts)
    mismatches = count_mismatches(result.jobs, table["job_id"], starts)
    contrast = simulate(table, spec, "fifo", "consolidate").jobs
    print(f"simulated span {span / 86400:.2f} days ({span + 1:,.0f} one-second steps); mean "
          f"queue delay {result.jobs['queue_delay'].mean() / 3600:.2f} h; acmesim events "
          f"{result.summary['events']:,}, passes {result.summary['passes']:,}")
    print(f"start-time mismatches: {mismatches} of {compared:,} jobs compared (for contrast, "
          f"acmesim with placement 'consolidate': "
          f"{count_mismatches(contrast, table['job_id'], starts):,})")
    print(f"acmesim simulate(): wall {acme_wall:.2f} s, CPU {acme_cpu:.2f} s "
          f"(event loop {result.summary['wall_time']:.2f} s)")
    label = "time-stepped reference"
    if scale == 1:
        print(f"{label}: wall {ref_wall:.2f} s, CPU {ref_cpu:.2f} s (full run)")
    else:
        print(f"{label}: wall {ref_wall:.2f} s, CPU {ref_cpu:.2f} s for the first "
              f"{stepped:,.0f} steps; EXTRAPOLATED x{scale:.2f} to the full span: wall "
              f"{ref_wall * scale:.1f} s, CPU {ref_cpu * scale:.1f} s")
    wall_ratio, cpu_ratio = ref_wall * scale / acme_wall, ref_cpu * scale / acme_cpu
    print(f"speed ratio (reference / acmesim): wall {wall_ratio:.1f}x, CPU {cpu_ratio:.1f}x"
          + (" (extrapolated)" if scale != 1 else ""))


if __name__ == "__main__":
    main()
