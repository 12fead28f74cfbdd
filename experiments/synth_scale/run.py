"""Cost and arrival statistics of ``acmesim synth --scale K``: one fresh process per scale.

    python experiments/synth_scale/run.py --days 183 --scales 1 4 10 44 --starts packer

prints, per scale, the jobs generated, the generation's CPU time (user + system of the child
process) and peak resident memory, and the four published arrival statistics of all jobs
(``acmesim.analysis.characterize.burstiness``) with their verdicts against Seren's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CHILD = r"""
import json, resource, sys, time
from acmesim.synth import generate_trace
from acmesim.analysis.characterize import burstiness
profile, days, seed, scale, starts = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), \
    float(sys.argv[4]), sys.argv[5]
jobs = generate_trace(profile, days, seed, scale=scale, starts=starts)
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu = usage.ru_utime + usage.ru_stime
stats = burstiness(jobs)
print(json.dumps({"jobs": len(jobs), "gpu_jobs": int((jobs["gpu_num"] > 0).sum()),
                  "cpu_s": cpu, "peak_rss_mb": usage.ru_maxrss / 1024, **stats}))
"""


def run_one(profile: str, days: float, seed: int, scale: float, starts: str,
            max_rss_gb: float) -> dict | None:
    """Generate one trace in a child process; its measurements, or None if it was stopped
    for holding more than ``max_rss_gb`` of resident memory."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, profile, str(days), str(seed),
                              str(scale), starts], stdout=subprocess.PIPE, text=True)
    while child.poll() is None:
        if _rss_gb(child.pid) > max_rss_gb:
            child.kill()
            child.wait()
            return None
        time.sleep(0.2)
    out = child.stdout.read() if child.stdout else ""
    if child.returncode:
        raise SystemExit(f"scale {scale:g}: the generation failed ({child.returncode})")
    return json.loads(out.strip().splitlines()[-1])


def _rss_gb(pid: int) -> float:
    """Resident memory of process ``pid`` in GB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return 0.0


def verdicts(stats: dict) -> str:
    """Pass/fail of each arrival statistic against Seren's published values."""
    from acmesim.trace.targets import SEREN

    marks = []
    for key, target in SEREN.arrivals.items():
        ok = SEREN.tolerance(key).passes(stats[key], target)
        marks.append(f"{key}={'pass' if ok else 'FAIL'}")
    return " ".join(marks)


def main() -> None:
    """Run every scale and print one line each."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profile", default="seren")
    p.add_argument("--days", type=float, default=183.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--scales", type=float, nargs="+", default=[1.0, 4.0, 10.0])
    p.add_argument("--starts", default="packer", choices=("baseline", "packer"))
    p.add_argument("--max-rss-gb", type=float, default=8.0,
                   help="stop a generation holding more resident memory than this (GB)")
    args = p.parse_args()
    print(f"{args.profile}, {args.days:g} days, seed {args.seed}, starts={args.starts}")
    print("scale | jobs | GPU jobs | CPU s | peak RSS MB | CV | same-second % | "
          "max/median hourly | top-5 users %")
    for scale in args.scales:
        r = run_one(args.profile, args.days, args.seed, scale, args.starts, args.max_rss_gb)
        if r is None:
            print(f"{scale:g} | stopped above {args.max_rss_gb:g} GB of resident memory")
            continue
        print(f"{scale:g} | {r['jobs']:,} | {r['gpu_jobs']:,} | {r['cpu_s']:.1f} | "
              f"{r['peak_rss_mb']:,.0f} | {r['interarrival_cv']:.1f} | "
              f"{100 * r['same_second_share']:.1f} | {r['max_median_hourly']:.0f} | "
              f"{100 * r['top5_user_share']:.1f} | {verdicts(r)}", flush=True)


if __name__ == "__main__":
    main()
