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

CHILD = r"""
import json, resource, sys, time
from acmesim.workload.synthetic import generate_trace
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


def run_one(profile: str, days: float, seed: int, scale: float, starts: str) -> dict:
    """Generate one trace in a child process; its measurements as a dict."""
    out = subprocess.run([sys.executable, "-c", CHILD, profile, str(days), str(seed),
                          str(scale), starts], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def verdicts(stats: dict) -> str:
    """Pass/fail of each arrival statistic against Seren's published values."""
    from acmesim.workload.targets import SEREN

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
    args = p.parse_args()
    print(f"{args.profile}, {args.days:g} days, seed {args.seed}, starts={args.starts}")
    print("scale | jobs | GPU jobs | CPU s | peak RSS MB | CV | same-second % | "
          "max/median hourly | top-5 users %")
    for scale in args.scales:
        r = run_one(args.profile, args.days, args.seed, scale, args.starts)
        print(f"{scale:g} | {r['jobs']:,} | {r['gpu_jobs']:,} | {r['cpu_s']:.1f} | "
              f"{r['peak_rss_mb']:,.0f} | {r['interarrival_cv']:.1f} | "
              f"{100 * r['same_second_share']:.1f} | {r['max_median_hourly']:.0f} | "
              f"{100 * r['top5_user_share']:.1f} | {verdicts(r)}", flush=True)


if __name__ == "__main__":
    main()
