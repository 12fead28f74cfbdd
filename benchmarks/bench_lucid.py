"""acmesim against the real Lucid simulator (S-Lab-System-Group/Lucid): FIFO + consolidate.

Needs a checkout of Lucid (``--lucid PATH``, the repository or its ``simulation/`` directory)
and a Python that can run it (``--lucid-python``, default this one; Lucid needs pandas,
numpy, scikit-learn, lightgbm and tkinter). Nothing of Lucid is part of acmesim.

The workload is ``bench_timestep.py``'s: ``--jobs`` GPU jobs of a synthetic Seren trace of
``--days`` days that fit ``--nodes`` x 8 GPUs, in whole seconds. It is converted to Lucid's input
(``lucid_format.py``: one virtual cluster, experiment ``Venus_Sept``, whose window holds at most
25.99 days), then Lucid runs ``simulator.py -s fifo -p consolidate`` and acmesim runs
``simulate(..., "fifo", --placement)`` on the same jobs (no start-up latency, as in Lucid),
each in its own process, timed by CPU (whole process, children included) and wall.

It reports how many jobs start at the same second in both, the mean JCT of each, and the CPU
ratio. Two known differences, both reported:

- Lucid sorts the jobs by submit time with an unstable sort, so jobs submitted in the same
  second can start in another order; ``--preorder`` writes them so that Lucid keeps acmesim's
  order (agreement can then be exact).
- multi-node jobs whose GPUs are not a multiple of 8 get whole nodes in acmesim and whole nodes
  plus one partly used node in Lucid; ``--drop-partial-gangs`` leaves them out of both runs.

    python benchmarks/bench_lucid.py --lucid PATH [--preorder] [--drop-partial-gangs]
        [--jobs 26000] [--days 25] [--nodes 110] [--seed 1] [--placement lucid]
        [--lucid-python PYTHON] [--convert-only DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from lucid_format import (  # noqa: E402
    EXPERIMENT,
    VC_NAME,
    lucid_queue_delays,
    partial_gangs,
    write_lucid_input,
)

NO_LUCID = (
    "bench_lucid.py compares acmesim with the Lucid simulator and needs a checkout of it:\n"
    "    git clone https://github.com/S-Lab-System-Group/Lucid\n"
    "    python benchmarks/bench_lucid.py --lucid Lucid [--preorder]\n"
    "(--convert-only DIR writes Lucid's input files without running it)")


def children_cpu() -> float:
    """CPU seconds of every finished, waited-for child process (and theirs) so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def simulation_dir(path: Path) -> Path:
    """Lucid's ``simulation/`` directory from the path given, or exit saying what is wrong."""
    for candidate in (path / "simulation", path):
        if (candidate / "simulator.py").is_file() and (candidate / "policy").is_dir():
            return candidate
    raise SystemExit(f"--lucid {path}: no Lucid simulator there (expected simulator.py and "
                     f"policy/ in it or in its simulation/ directory)")


def child(args: argparse.Namespace) -> None:
    """Replay the stored table with acmesim; print figures and store the queue delays."""
    from acmesim.cluster import ClusterSpec
    from acmesim.run import simulate

    table = pd.read_pickle(args.child)
    spec = ClusterSpec(name="lucid", nodes=args.nodes)
    wall, cpu = time.perf_counter(), time.process_time()
    result = simulate(table, spec, "fifo", args.placement)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    jobs = result.jobs
    position = pd.Index(table["job_id"].astype(str)).get_indexer(jobs["job_id"])
    delays = np.full(len(table), np.nan)
    delays[position] = jobs["queue_delay"].to_numpy(dtype=float)
    np.save(args.out, delays)
    print(json.dumps({"simulate_cpu_s": cpu, "simulate_wall_s": wall,
                      "process_cpu_s": time.process_time(),
                      "jct_mean_s": float(jobs["jct"].mean())}))


def run_acmesim(table_path: Path, out: Path, args: argparse.Namespace) -> dict:
    """acmesim in a fresh process; its figures plus whole-process CPU and wall."""
    command = [sys.executable, __file__, "--child", str(table_path), "--out", str(out),
               "--nodes", str(args.nodes), "--placement", args.placement]
    before, wall = children_cpu(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    figures = {"cpu_s": children_cpu() - before, "wall_s": time.perf_counter() - wall}
    if done.returncode:
        raise SystemExit(f"the acmesim run failed:\n{done.stderr[-4000:]}")
    return {**figures, **json.loads(done.stdout.strip().splitlines()[-1])}


def run_lucid(simulation: Path, trace_dir: Path, log_dir: Path, python: str) -> dict:
    """Lucid's FIFO + consolidate in its directory; CPU (children included), wall, its log."""
    command = [python, "simulator.py", "-e", EXPERIMENT, "-t", str(trace_dir), "-l",
               str(log_dir), "-s", "fifo", "-p", "consolidate", "-j", "1"]
    env = {**os.environ, "TZ": "UTC"}  # Lucid reads submit dates as local time
    before, wall = children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=simulation, env=env, capture_output=True, text=True)
    figures = {"cpu_s": children_cpu() - before, "wall_s": time.perf_counter() - wall}
    log = log_dir / EXPERIMENT / VC_NAME / f"fifo_consolidate_{VC_NAME}_log.csv"
    if done.returncode or not log.is_file():
        raise SystemExit(f"Lucid failed (exit {done.returncode}; command {' '.join(command)} "
                         f"in {simulation}):\n{(done.stderr or done.stdout)[-4000:]}")
    return {**figures, "log": pd.read_csv(log)}


def report(table: pd.DataFrame, acme: dict, lucid: dict, acme_delays: np.ndarray,
           partial: np.ndarray, preorder: bool) -> int:
    """Print agreement and timings; the exit status (1 if pre-ordered jobs disagree)."""
    log = lucid["log"]
    lucid_delays = lucid_queue_delays(log)
    same = acme_delays == lucid_delays
    outside = np.ones(len(table), dtype=bool)
    outside[partial] = False
    jct = float((log["end_time"] - log["submit_time"])[log["job_id"] != "anchor"].mean())
    print(f"start times agree for {int(same.sum()):,} of {len(table):,} jobs "
          f"({'pre-ordered' if preorder else 'Lucid ordering'} same-second jobs); "
          f"partial gangs: {len(partial):,}, of which agree {int(same[partial].sum()):,}")
    print(f"mean JCT: acmesim {acme['jct_mean_s']:,.0f} s, Lucid {jct:,.0f} s "
          f"({(acme['jct_mean_s'] / jct - 1) * 100:+.2f}%)")
    for i in np.flatnonzero(~same)[:5]:
        print(f"  differs: j{i} ({table['job_id'].iloc[i]}, {table['gpu_num'].iloc[i]} GPUs): "
              f"queue delay acmesim {acme_delays[i]:g} s, Lucid {lucid_delays[i]:g} s")
    print(f"acmesim: simulate() CPU {acme['simulate_cpu_s']:.2f} s (wall "
          f"{acme['simulate_wall_s']:.2f} s); whole process CPU {acme['cpu_s']:.1f} s "
          f"(wall {acme['wall_s']:.1f} s)")
    print(f"Lucid: whole process CPU {lucid['cpu_s']:.1f} s (wall {lucid['wall_s']:.1f} s)")
    print(f"CPU ratio Lucid / acmesim: {lucid['cpu_s'] / acme['cpu_s']:.1f}x whole processes, "
          f"{lucid['cpu_s'] / acme['simulate_cpu_s']:.1f}x against simulate() alone")
    if preorder and not same[outside].all():
        print(f"UNEXPECTED: {int((~same[outside]).sum()):,} pre-ordered jobs that are not "
              f"partial gangs start differently", file=sys.stderr)
        return 1
    return 0


def parse() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lucid", type=Path, help="a checkout of S-Lab-System-Group/Lucid")
    parser.add_argument("--lucid-python", default=sys.executable)
    parser.add_argument("--preorder", action="store_true",
                        help="keep acmesim's order of same-second jobs in Lucid")
    parser.add_argument("--drop-partial-gangs", action="store_true",
                        help="leave out multi-node jobs whose GPUs are not a multiple of 8")
    parser.add_argument("--jobs", type=int, default=26_000)
    parser.add_argument("--days", type=float, default=25.0)
    parser.add_argument("--nodes", type=int, default=110)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--placement", default="lucid",
                        help="acmesim's placement (lucid: Lucid's tie-breaks; or consolidate)")
    parser.add_argument("--convert-only", type=Path, metavar="DIR",
                        help="write Lucid's input files into DIR and stop")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    return parser.parse_args()


def main() -> None:
    """Build the workload, convert it, run both, report."""
    args = parse()
    if args.child:
        child(args)
        return
    if args.lucid is None and args.convert_only is None:
        raise SystemExit(NO_LUCID)
    simulation = simulation_dir(args.lucid) if args.lucid is not None else None
    from bench_timestep import workload

    table = workload(args.jobs, args.days, args.seed, args.nodes * 8)
    partial = partial_gangs(table)
    if args.drop_partial_gangs and len(partial):
        table = table.drop(index=partial).reset_index(drop=True)
        print(f"left out {len(partial):,} multi-node jobs whose GPUs are not a multiple of 8")
        partial = partial_gangs(table)
    print(f"workload: {len(table):,} GPU jobs over {args.days:g} days on {args.nodes} nodes x 8 "
          f"GPUs; {len(partial):,} partial gangs")
    if args.convert_only is not None:
        write_lucid_input(table, args.convert_only, args.nodes, preorder=args.preorder)
        print(f"Lucid input written to {args.convert_only}: run simulator.py -e {EXPERIMENT} "
              f"-t {args.convert_only.resolve()} -s fifo -p consolidate (with TZ=UTC)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        table.to_pickle(work / "table.pkl")
        write_lucid_input(table, work / "trace", args.nodes, preorder=args.preorder)
        acme = run_acmesim(work / "table.pkl", work / "acme.npy", args)
        lucid = run_lucid(simulation, (work / "trace").resolve(), (work / "log").resolve(),
                          args.lucid_python)
        status = report(table, acme, lucid, np.load(work / "acme.npy"), partial, args.preorder)
    raise SystemExit(status)


if __name__ == "__main__":
    main()
