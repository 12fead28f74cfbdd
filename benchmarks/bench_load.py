"""Benchmark: write and load a full-size Seren trace (about 818k rows, ~100 MB).

The real ``trace_seren.csv`` has 818,327 rows (``pd.read_csv`` output shown in the public notebook
``sunedin/ai-datacenter-power-profiling:notebooks/CheckDataset.ipynb``); the AcmeTrace README
gives 109 MB for the whole job-trace dataset. The file is made by the synthetic generator
(``generate_trace(profile="seren", days=183, seed=1)``) when it is available, else by a quick
random normalized table of the same size, and written with ``write_acme_csv``.

Each load runs in a fresh subprocess that reports its own wall time and peak resident memory
(``VmHWM`` of ``/proc/self/status``, which starts afresh at ``exec``; ``ru_maxrss`` elsewhere,
which on Linux would inherit this process's high-water mark), next to a plain
``pandas.read_csv`` of the same file as the in-run reference (ratio). Targets: load <= 15 s and
<= 3 GB.

    python benchmarks/bench_load.py [--rows 818327] [--source auto|synthetic|random] [--keep F]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from acmesim.core.rng import RngStreams
from acmesim.trace.formats import write_acme_csv
from acmesim.trace.schema import FINAL_STATES, JOB_TYPES

SEREN_ROWS = 818_327
TARGET_SECONDS = 15.0
TARGET_MB = 3 * 1024

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import pandas as pd
import acmesim
t1, c1 = time.perf_counter(), time.process_time()
if sys.argv[2] == "acmesim":
    jobs = acmesim.load_trace(sys.argv[1])
    rows = len(jobs)
elif sys.argv[2] == "pandas":
    rows = len(pd.read_csv(sys.argv[1]))
else:
    rows = 0
t2, c2 = time.perf_counter(), time.process_time()
try:
    with open("/proc/self/status") as status:
        hwm = [line for line in status if line.startswith("VmHWM:")][0]
    peak_mb = int(hwm.split()[1]) / 1024
except (OSError, IndexError):
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"rows": rows, "import_s": t1 - t0, "load_s": t2 - t1, "cpu_s": c2 - c1,
                  "peak_mb": peak_mb}))
"""


def random_jobs(rows: int, seed: int = 1) -> pd.DataFrame:
    """A quick random normalized Seren-like table (only sizes and formats matter here)."""
    rng = RngStreams(seed).stream("bench_load")
    t0 = pd.Timestamp("2023-02-28 16:00", tz="UTC")
    submit = np.sort(rng.integers(0, 183 * 86400, rows))
    start = submit + rng.geometric(0.01, rows) - 1
    end = start + rng.lognormal(5.5, 2.0, rows).astype(np.int64).clip(0, 30 * 86400)
    gpus = rng.choice([0, 1, 2, 4, 8, 16, 64, 256], rows, p=[.35, .3, .1, .08, .12, .03, .015,
                                                              .005])
    stamp = lambda s: t0 + pd.to_timedelta(s, unit="s")  # noqa: E731
    return pd.DataFrame({
        "job_id": (5_778_432 + np.arange(rows)).astype(str),
        "user": np.char.add("u", rng.integers(0, 0xFFFF, rows).astype(str)),
        "type": rng.choice(JOB_TYPES, rows), "state": rng.choice(FINAL_STATES, rows),
        "submit_time": stamp(submit), "start_time": stamp(start), "end_time": stamp(end),
        "gpu_num": gpus, "node_num": np.maximum(1, gpus // 8), "cpu_num": 16 * np.maximum(1, gpus),
    })


def make_jobs(rows: int, source: str) -> tuple[pd.DataFrame, str]:
    """The table to write: synthetic Seren (preferred) or random."""
    if source in ("auto", "synthetic"):
        try:
            from acmesim.synth import generate_trace
        except ImportError:
            if source == "synthetic":
                raise
        else:
            jobs = generate_trace(profile="seren", days=183, seed=1)
            return jobs, f"synthetic seren profile, 183 days, seed 1 ({len(jobs)} rows)"
    return random_jobs(rows), f"random table ({rows} rows)"


def measure(path: Path, reader: str) -> dict:
    """Run one load in a fresh interpreter and return its figures."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), reader], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def report_loads(path: Path) -> int:
    """Time imports only, plain ``read_csv`` and ``load_trace`` on ``path``; print figures."""
    baseline, plain, ours = (measure(path, reader) for reader in ("none", "pandas", "acmesim"))
    print(f"interpreter + imports only: peak {baseline['peak_mb']:.0f} MB")
    print(f"pandas.read_csv (reference): {plain['load_s']:.2f} s (CPU {plain['cpu_s']:.2f} s), "
          f"peak {plain['peak_mb']:.0f} MB")
    print(f"acmesim.load_trace: {ours['rows']} rows in {ours['load_s']:.2f} s "
          f"(CPU {ours['cpu_s']:.2f} s), peak {ours['peak_mb']:.0f} MB")
    print(f"ratio load_trace / read_csv: time {ours['load_s'] / plain['load_s']:.2f}x, "
          f"peak memory {ours['peak_mb'] / plain['peak_mb']:.2f}x")
    ok = ours["load_s"] <= TARGET_SECONDS and ours["peak_mb"] <= TARGET_MB
    print(f"targets (<= {TARGET_SECONDS:.0f} s, <= {TARGET_MB} MB): {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=SEREN_ROWS)
    parser.add_argument("--source", choices=["auto", "synthetic", "random"], default="auto")
    parser.add_argument("--keep", type=Path, help="write the trace here and keep it")
    parser.add_argument("--load-only", type=Path, help="only time loading this existing file")
    args = parser.parse_args(argv)
    if args.load_only:
        return report_loads(args.load_only)
    t = time.perf_counter()
    jobs, origin = make_jobs(args.rows, args.source)
    print(f"trace: {origin}; made in {time.perf_counter() - t:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "trace_seren.csv"
        t, c = time.perf_counter(), time.process_time()
        write_acme_csv(jobs, path, "seren")
        print(f"write_acme_csv: {len(jobs)} rows, {path.stat().st_size / 2**20:.1f} MB in "
              f"{time.perf_counter() - t:.2f} s (CPU {time.process_time() - c:.2f} s)")
        del jobs
        return report_loads(path)


if __name__ == "__main__":
    raise SystemExit(main())
