"""Cost of power accounting: the same replay with power=none, power=acme and a baseline build.

Timing: ``simulate`` (event loop plus tables) of one synthetic Seren trace, each run in a fresh
process, under three builds: the code of a baseline git revision (``--baseline``, default
``main``, exported with ``git archive``), this tree with ``power=none`` (the default) and this
tree with ``power=acme``; for two replays: plain FIFO, and FIFO with ``failure=acme`` +
``checkpoint=young`` (where interval closes do the most power work). Rounds are interleaved and
the order of the builds rotates from round to round, so a change in the machine's load hits
every build alike. For each build it prints the CPU time (``time.process_time`` of the child,
the figure that counts on a shared machine) and wall time: median, minimum and spread ((max -
min) / median); and for each pair the median of the per-round ratios (paired: runs of one round
ran back to back) with their range.

Counting (``--count``, deterministic): one in-process run of each replay under ``cProfile`` per
power model: the number of Python function calls of the whole run (exact and repeatable), the
share of them in the power extension (``acmesim/energy``, ``acmesim/policies/power``), and the
share of the profiled time spent inside the extension's hooks and tables (cumulative).

Instructions (``--instructions``, deterministic, unaffected by the machine's load): each
replay's child process under valgrind (``--tool=cachegrind --cache-sim=no``: every
instruction executed, about 25x slower than a plain run), ``--rounds`` times per build,
interleaved, beside a child that loads the trace and skips ``simulate``; its count is
subtracted, so the figure is ``simulate``'s own instructions. ``PYTHONHASHSEED=0`` and one
BLAS/OpenMP thread keep the count repeatable.

    python benchmarks/bench_power.py [--days 30] [--rounds 5] [--baseline main]
    python benchmarks/bench_power.py --count [--days 30]
    python benchmarks/bench_power.py --instructions [--days 5] [--rounds 2] [--scenarios plain]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FAULTS = {"failure": "acme", "checkpoint": "young", "recovery": "automatic"}
"""The options of the ``faults`` replay."""

CHILD = r"""
import json, sys, time
import pandas as pd
import acmesim
from acmesim.run import simulate
jobs = pd.read_pickle(sys.argv[1])
scenario, power = sys.argv[2], sys.argv[3]
kwargs = {} if power in ("-", "skip") else {"power": power}
if scenario == "faults":
    kwargs.update(json.loads(sys.argv[4]))
began, cpu = time.perf_counter(), time.process_time()
events = 0 if power == "skip" else simulate(jobs, "seren", "fifo", "consolidate",
                                             **kwargs).summary["events"]
print(json.dumps({"wall": time.perf_counter() - began, "cpu": time.process_time() - cpu,
                  "events": events, "module": acmesim.__file__}))
"""

DETERMINISTIC_ENV = {"PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1",
                     "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The child's environment for instruction counts (string hashing and thread pools fixed)."""

POWER_CODE = (os.path.join("acmesim", "energy") + os.sep,
              os.path.join("acmesim", "policies", "power") + os.sep)
"""Source folders of the power extension (a profiled function in them is power work)."""


def export(revision: str, folder: Path) -> Path:
    """The ``acmesim`` package of ``revision`` under ``folder`` (for PYTHONPATH)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "acmesim"],
                             check=True, capture_output=True).stdout
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def measure(trace: Path, scenario: str, power: str, path: Path | None) -> dict:
    """One timed replay in a fresh process (``path``: PYTHONPATH of the baseline build)."""
    env = None if path is None else {**os.environ, "PYTHONPATH": str(path)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(trace), scenario, power,
                          json.dumps(FAULTS)], check=True, capture_output=True, text=True,
                         env=env, cwd=trace.parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


def instructions(trace: Path, scenario: str, power: str) -> int:
    """Instructions executed by one child process (valgrind's cachegrind, no cache model)."""
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no",
               "--cachegrind-out-file=/dev/null", sys.executable, "-c", CHILD, str(trace),
               scenario, power, json.dumps(FAULTS)]
    try:
        out = subprocess.run(command, capture_output=True, text=True, cwd=trace.parent,
                             env={**os.environ, **DETERMINISTIC_ENV})
    except FileNotFoundError:
        raise SystemExit("--instructions needs valgrind on PATH") from None
    if out.returncode != 0:
        raise SystemExit(f"the replay failed under valgrind:\n{out.stderr[-2000:]}")
    for line in out.stderr.splitlines():
        if "I   refs:" in line:
            return int(line.split(":")[1].replace(",", ""))
    raise SystemExit(f"valgrind printed no instruction count:\n{out.stderr[-2000:]}")


def counting_instructions(days: float, rounds: int,
                          scenarios: tuple[str, ...] = ("plain", "faults")) -> None:
    """``simulate``'s instructions under ``power=none`` and ``power=acme``, per replay of
    ``scenarios``; print each build's counts and the ratio of their medians."""
    from acmesim.synth import generate_trace

    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.pkl"
        generate_trace(profile="seren", days=days, seed=1).to_pickle(trace)
        builds = ("skip", "none", "acme")
        for scenario in scenarios:
            counts: dict[str, list[int]] = {b: [] for b in builds}
            for k in range(rounds):
                for build in rotated(list(builds), k):
                    counts[build].append(instructions(trace, scenario, build))
            print(f"{scenario}: {days:g} days of synthetic Seren, {rounds} rounds, "
                  "instructions (valgrind)")
            for build in builds:
                values = counts[build]
                print(f"  {build:5s} median {statistics.median(values):,.0f}  range "
                      f"{min(values):,}-{max(values):,}")
            skip = statistics.median(counts["skip"])
            none, acme = (statistics.median(counts[b]) - skip for b in ("none", "acme"))
            print(f"  simulate: none {none:,.0f}, acme {acme:,.0f}; acme/none {acme / none:.4f}")


def rotated(items: list, k: int) -> list:
    """``items`` rotated left by ``k`` (the build order of round ``k``)."""
    k %= len(items)
    return items[k:] + items[:k]


def timing(days: float, rounds: int, baseline: str) -> None:
    """Time every build in interleaved, rotating rounds of fresh processes; print the figures."""
    from acmesim.synth import generate_trace

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        trace = folder / "trace.pkl"
        generate_trace(profile="seren", days=days, seed=1).to_pickle(trace)
        base = export(baseline, folder / "baseline")
        builds = {"baseline": ("-", base), "none": ("none", None), "acme": ("acme", None)}
        for scenario in ("plain", "faults"):
            times: dict[str, list[dict]] = {b: [] for b in builds}
            for k in range(rounds):
                for build in rotated(list(builds), k):
                    power, path = builds[build]
                    times[build].append(measure(trace, scenario, power, path))
            print(f"{scenario}: {days:g} days of synthetic Seren, {rounds} rounds, "
                  f"baseline={baseline} (module {times['baseline'][0]['module']})")
            report(times)


def spread(values: list[float]) -> str:
    """Median, minimum and (max - min) / median of ``values``."""
    median = statistics.median(values)
    return (f"median {median:7.2f} s  min {min(values):7.2f} s  "
            f"spread {(max(values) - min(values)) / median:5.1%}")


def report(times: dict[str, list[dict]]) -> None:
    """Per build: CPU and wall median, minimum, spread; per pair: paired ratios."""
    for build, runs in times.items():
        for key in ("cpu", "wall"):
            print(f"  {build:9s} {key:4s} {spread([r[key] for r in runs])}  "
                  f"events {runs[0]['events']}")
    for a, b in (("none", "baseline"), ("acme", "none"), ("acme", "baseline")):
        for key in ("cpu", "wall"):
            ratios = [x[key] / y[key] for x, y in zip(times[a], times[b], strict=True)]
            ratio_min = min(r[key] for r in times[a]) / min(r[key] for r in times[b])
            print(f"  {a}/{b} {key:4s}: paired median {statistics.median(ratios):.3f} "
                  f"(range {min(ratios):.3f}-{max(ratios):.3f}), ratio of minima "
                  f"{ratio_min:.3f}")


def counting(days: float) -> None:
    """Profile one in-process run of each replay and power model; print calls and shares."""
    import cProfile
    import pstats

    from acmesim.run import simulate
    from acmesim.synth import generate_trace

    jobs = generate_trace(profile="seren", days=days, seed=1)
    for scenario in ("plain", "faults"):
        calls = {}
        for power in ("none", "acme"):
            profile = cProfile.Profile()
            profile.enable()
            simulate(jobs, "seren", "fifo", "consolidate", power=power,
                     **(FAULTS if scenario == "faults" else {}))
            profile.disable()
            stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
            calls[power] = sum(entry[1] for entry in stats.values())
            power_calls = sum(entry[1] for (path, _, _), entry in stats.items()
                              if any(p in path for p in POWER_CODE))
            total = pstats.Stats(profile).total_tt  # type: ignore[attr-defined]
            inside = _power_time(stats)
            print(f"{scenario} power={power}: {calls[power]:,} calls, {power_calls:,} in the "
                  f"power extension ({power_calls / calls[power]:.2%}); profiled time "
                  f"{total:.2f} s, {inside / total:.2%} inside its hooks and tables")
        print(f"{scenario}: acme/none calls {calls['acme'] / calls['none']:.4f}")


def _power_time(stats: dict) -> float:
    """Profiled seconds inside the power extension: the cumulative time of its functions over
    the calls from outside it (so nothing is counted twice)."""
    inside = 0.0
    for (path, _, _), (_, _, _, _, callers) in stats.items():
        if any(p in path for p in POWER_CODE):
            inside += sum(entry[3] for caller, entry in callers.items()
                          if not any(p in caller[0] for p in POWER_CODE))
    return inside


def main() -> None:
    """Time the builds (default), count the power extension's calls (``--count``) or the
    replays' instructions (``--instructions``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--count", action="store_true")
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--scenarios", nargs="+", choices=("plain", "faults"),
                        default=["plain", "faults"], help="replays of --instructions")
    args = parser.parse_args()
    if args.count:
        counting(args.days)
    elif args.instructions:
        counting_instructions(args.days, args.rounds, tuple(args.scenarios))
    else:
        timing(args.days, args.rounds, args.baseline)


if __name__ == "__main__":
    main()
