"""Replay speed: a 183-day synthetic Seren trace, FIFO + consolidate, at 1x, 2x and 4x length.

Each scale runs in a fresh process (so peak RSS is its own): the parent generates the trace
once (``generate_trace(profile="seren", days=183, seed=1)``), tiles it k times end to end (same
job mix and load, k times the jobs), and stores it; the child loads it and times ``simulate``
(event loop plus table building) and, at 1x, ``run_replay`` (which also writes the CSV files).

    python benchmarks/bench_replay.py [--days 183] [--scales 1 2 4] [--mode scheduled]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd


def tiled(trace: pd.DataFrame, copies: int) -> pd.DataFrame:
    """``copies`` back-to-back copies of ``trace`` (later copies shifted by its span)."""
    if copies == 1:
        return trace
    span = trace["end_time"].max() - trace["submit_time"].min() + pd.Timedelta(seconds=1)
    parts = []
    for k in range(copies):
        part = trace.copy()
        for column in ("submit_time", "start_time", "end_time"):
            part[column] = part[column] + k * span
        part["job_id"] = part["job_id"].astype(str) + f"-{k}"
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def child(path: str, mode: str, write: bool) -> None:
    """Time one replay of the pickled trace at ``path``; print one JSON line."""
    from acmesim.core.config import ReplayConfig
    from acmesim.run import run_replay, simulate

    jobs = pd.read_pickle(path)
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    began, cpu = time.perf_counter(), time.process_time()
    result = simulate(jobs, "seren", "fifo", "consolidate", mode=mode)
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    out = {
        "jobs": len(jobs), "simulated": result.summary["simulated_jobs"],
        "events": result.summary["events"], "passes": result.summary["passes"],
        "loop_s": result.summary["wall_time"], "simulate_s": wall, "simulate_cpu_s": cpu,
        "events_per_s": result.summary["events"] / result.summary["wall_time"],
        "late": result.summary["recorded_late_jobs"],
        "gpu_utilization": result.summary["gpu_utilization"],
        "rss_before_mb": base_rss,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if write:
        del result
        with tempfile.TemporaryDirectory() as run_dir:
            began = time.perf_counter()
            replay = run_replay(ReplayConfig(mode=mode, progress=False), Path(run_dir), jobs=jobs)
            out["run_replay_s"] = time.perf_counter() - began
            out["run_replay_error"] = replay.error
            out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def main() -> None:
    """Generate, tile, and time each scale in its own process."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=183.0)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--mode", default="scheduled", choices=["scheduled", "recorded"])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--write", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.mode, args.write)
        return
    from acmesim.synth import generate_trace

    began = time.perf_counter()
    trace = generate_trace(profile="seren", days=args.days, seed=1)
    print(f"generated {len(trace):,} jobs ({int((trace.gpu_num > 0).sum()):,} GPU jobs) over "
          f"{args.days:g} days in {time.perf_counter() - began:.1f} s")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for scale in args.scales:
            path = Path(tmp) / f"trace{scale}.pkl"
            tiled(trace, scale).to_pickle(path)
            command = [sys.executable, __file__, "--child", str(path), "--mode", args.mode]
            if scale == args.scales[0]:
                command.append("--write")
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            row = json.loads(done.stdout.strip().splitlines()[-1])
            row["scale"] = scale
            rows.append(row)
            print(json.dumps(row))
    first = rows[0]
    print(f"\nmode={args.mode} scheduler=fifo placement=consolidate cluster=seren")
    print("scale  GPU jobs   events     loop s  simulate s  cpu s   events/s  peak RSS MB  "
          "s per 1x")
    for row in rows:
        per = row["simulate_s"] / (row["scale"] / first["scale"])
        print(f"{row['scale']:>4}x {row['simulated']:>9,} {row['events']:>9,} "
              f"{row['loop_s']:>9.1f} {row['simulate_s']:>10.1f} {row['simulate_cpu_s']:>6.1f} "
              f"{row['events_per_s']:>10,.0f} {row['peak_rss_mb']:>11.0f} {per:>9.1f}")
    if "run_replay_s" in first:
        print(f"run_replay at {first['scale']}x (simulate + write CSVs): "
              f"{first['run_replay_s']:.1f} s, error={first['run_replay_error']}")


if __name__ == "__main__":
    main()
