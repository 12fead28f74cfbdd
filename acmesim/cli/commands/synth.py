"""``acmesim synth``: write a calibrated synthetic trace in a cluster's exact published schema.

Same arguments, same bytes: the trace depends only on the profile, the number of days and the
seed. The model and every constant it uses are in ``acmesim/synth/profiles.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acmesim.core.atomic import check_output_path
from acmesim.core.errors import ConfigError
from acmesim.synth import generate_trace, get_profile, profile_names
from acmesim.synth.task_files import write_task_trace
from acmesim.trace.formats import write_acme_csv


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``acmesim synth``."""
    p = argparse.ArgumentParser(
        prog="acmesim synth",
        description="write a calibrated synthetic trace in a cluster's exact published schema",
        epilog="example: acmesim synth --profile seren --days 30 --seed 1 --out seren30.csv")
    p.add_argument("--profile", required=True,
                   help=f"workload profile: {', '.join(profile_names())}")
    p.add_argument("--days", type=float, required=True, help="length of the trace in days")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", type=Path, required=True, help="CSV file to write")
    return p


def main(argv: list[str]) -> int:
    """Generate the trace, write it atomically, print a one-line summary."""
    args = parser().parse_args(argv)
    profile = get_profile(args.profile)
    if args.seed < 0:
        raise ConfigError(f"--seed must be a non-negative integer, got {args.seed}")
    check_output_path(args.out)  # before generating: fail at once on a directory
    jobs = generate_trace(profile.name, args.days, args.seed)
    if "workload" in jobs.columns:  # task-DL and mixed traces keep their task columns
        write_task_trace(jobs, args.out)
    else:
        write_acme_csv(jobs, args.out, profile.cluster)
    gpu = int((jobs["gpu_num"] > 0).sum())
    print(f"wrote {args.out}: {len(jobs)} jobs ({gpu} GPU, {len(jobs) - gpu} CPU), "
          f"{args.days:g} days of profile {profile.name} (seed {args.seed}), "
          f"{profile.cluster} schema", file=sys.stdout)
    return 0
