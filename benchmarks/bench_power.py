"""Cost of power accounting: the same replay before this change, with power=none and power=acme.

One run times, in interleaved rounds and each in a fresh process, ``simulate`` (event loop plus
tables) of one synthetic Seren trace under three builds: the code of a baseline git revision
(``--baseline``, default ``main``, exported with ``git archive``), this tree with
``power=none`` (the default), and this tree with ``power=acme``; for two replays: plain FIFO,
and FIFO with ``failure=acme`` + ``checkpoint=young`` (where interval closes do the most power
work). It prints the median wall and CPU time of each and their ratios within this one run.

    python benchmarks/bench_power.py [--days 30] [--rounds 3] [--baseline main]
    python benchmarks/bench_power.py --in-process [--days 30] [--rounds 5]

``--in-process`` alternates ``power=none`` and ``power=acme`` in this one process instead (no
baseline build): the least noisy A/B of the accounting's own cost on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
import pandas as pd
import acmesim
from acmesim.run import simulate
jobs = pd.read_pickle(sys.argv[1])
scenario, power = sys.argv[2], sys.argv[3]
kwargs = {} if power == "-" else {"power": power}
if scenario == "faults":
    kwargs.update(failure="acme", checkpoint="young", recovery="automatic")
began, cpu = time.perf_counter(), time.process_time()
result = simulate(jobs, "seren", "fifo", "consolidate", **kwargs)
print(json.dumps({"wall": time.perf_counter() - began, "cpu": time.process_time() - cpu,
                  "events": result.summary["events"], "module": acmesim.__file__}))
"""


def export(revision: str, folder: Path) -> Path:
    """The ``acmesim`` package of ``revision`` under ``folder`` (for PYTHONPATH)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "acmesim"],
                             check=True, capture_output=True).stdout
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def measure(trace: Path, scenario: str, power: str, path: Path | None) -> dict:
    """One timed replay in a fresh process (``path``: PYTHONPATH of the baseline build)."""
    env = None
    if path is not None:
        import os
        env = {**os.environ, "PYTHONPATH": str(path)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(trace), scenario, power],
                         check=True, capture_output=True, text=True, env=env, cwd=trace.parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


def in_process(days: float, rounds: int) -> None:
    """Alternate power=none and power=acme in this process; print min/median CPU and wall."""
    import time

    from acmesim.run import simulate
    from acmesim.synth import generate_trace

    jobs = generate_trace(profile="seren", days=days, seed=1)
    for scenario in ("plain", "faults"):
        runs: dict[str, list[tuple[float, float]]] = {"none": [], "acme": []}
        for _ in range(rounds):
            for power in runs:
                faults = ({"failure": "acme", "checkpoint": "young", "recovery": "automatic"}
                          if scenario == "faults" else {})
                began, cpu = time.perf_counter(), time.process_time()
                simulate(jobs, "seren", "fifo", "consolidate", power=power, **faults)
                runs[power].append((time.process_time() - cpu, time.perf_counter() - began))
        for label, pick in (("min", min), ("median", statistics.median)):
            cpu = {p: pick(r[0] for r in rs) for p, rs in runs.items()}
            wall = {p: pick(r[1] for r in rs) for p, rs in runs.items()}
            print(f"{scenario} {label}: none cpu {cpu['none']:.2f} s wall {wall['none']:.2f} s; "
                  f"acme cpu {cpu['acme']:.2f} s wall {wall['acme']:.2f} s; acme/none cpu "
                  f"{cpu['acme'] / cpu['none']:.3f} wall {wall['acme'] / wall['none']:.3f}")


def main() -> None:
    """Generate the trace, time every build in interleaved rounds, print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--in-process", action="store_true")
    args = parser.parse_args()
    if args.in_process:
        in_process(args.days, args.rounds)
        return
    from acmesim.synth import generate_trace

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        trace = folder / "trace.pkl"
        generate_trace(profile="seren", days=args.days, seed=1).to_pickle(trace)
        base = export(args.baseline, folder / "baseline")
        builds = {"baseline": ("-", base), "none": ("none", None), "acme": ("acme", None)}
        for scenario in ("plain", "faults"):
            times: dict[str, list[dict]] = {b: [] for b in builds}
            for _ in range(args.rounds):
                for build, (power, path) in builds.items():
                    times[build].append(measure(trace, scenario, power, path))
            report(scenario, args, times)


def report(scenario: str, args, times: dict[str, list[dict]]) -> None:
    """Median and minimum wall/CPU per build, and their ratios to the baseline and to none.

    On a shared machine the minimum is the least disturbed of the rounds.
    """
    events = {b: rs[0]["events"] for b, rs in times.items()}
    print(f"{scenario}: {args.days:g} days of synthetic Seren, {args.rounds} rounds, "
          f"baseline={args.baseline} (module {times['baseline'][0]['module']})")
    for label, pick in (("median", statistics.median), ("min", min)):
        stat = {b: {k: pick(r[k] for r in rs) for k in ("wall", "cpu")}
                for b, rs in times.items()}
        for build, m in stat.items():
            print(f"  {label:6s} {build:9s} wall {m['wall']:7.2f} s  cpu {m['cpu']:7.2f} s  "
                  f"events {events[build]}")
        for a, b in (("none", "baseline"), ("acme", "none"), ("acme", "baseline")):
            print(f"  {label:6s} {a}/{b}: wall {stat[a]['wall'] / stat[b]['wall']:.3f}  "
                  f"cpu {stat[a]['cpu'] / stat[b]['cpu']:.3f}")


if __name__ == "__main__":
    main()
