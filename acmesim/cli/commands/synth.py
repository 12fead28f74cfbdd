"""``acmesim synth``: write a calibrated synthetic trace in a cluster's exact published schema.

Same arguments, same bytes: the trace depends only on the profile, the number of days, the
seed, the scale and the starts. The model and every constant it uses are in
``acmesim/synth/profiles.py``; ``--scale K`` is the lab K times larger
(``acmesim/synth/scale.py``). An output ending in ``.parquet`` is the normalized
job table as Parquet (``acmesim/trace/loaders/parquet.py``), which ``trace=file`` reads back
exactly and much faster than a CSV.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acmesim.core.atomic import check_output_path
from acmesim.core.errors import ConfigError
from acmesim.synth.catalog import STARTS, profile_names

# The generator and the writers (numpy, pandas, the baseline replay) are imported by `main`, so
# that `acmesim synth --help` does not load them.


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``acmesim synth``."""
    p = argparse.ArgumentParser(
        prog="acmesim synth",
        description="write a calibrated synthetic trace in a cluster's exact published schema "
                    "(or as a normalized Parquet table)",
        epilog="examples: acmesim synth --profile seren --days 30 --seed 1 --out seren30.csv\n"
               "          acmesim synth --profile seren --days 183 --scale 44 --starts packer "
               "--out seren_x44.parquet",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--profile", required=True,
                   help=f"workload profile: {', '.join(profile_names())}")
    p.add_argument("--days", type=float, required=True, help="length of the trace in days")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="K x the profile's nodes at the same load per GPU: K x the jobs, teams "
                        "and users (K >= 1, K x nodes whole; default 1); replay it with "
                        "cluster.scale=K")
    p.add_argument("--starts", choices=STARTS, default="baseline",
                   help="recorded starts: baseline (a replay under acme, calibrated; default) "
                        "or packer (no replay: fast at large --scale, its own queueing)")
    p.add_argument("--out", type=Path, required=True,
                   help="file to write: the cluster's published CSV schema, or the normalized "
                        "table as Parquet when it ends in .parquet")
    return p


def main(argv: list[str]) -> int:
    """Generate the trace, write it atomically, print a one-line summary."""
    args = parser().parse_args(argv)
    from acmesim.synth import generate_trace, get_profile
    from acmesim.synth.task_files import write_task_trace
    from acmesim.trace.formats import write_acme_csv
    from acmesim.trace.loaders.parquet import is_parquet, write_parquet

    profile = get_profile(args.profile)
    if args.seed < 0:
        raise ConfigError(f"--seed must be a non-negative integer, got {args.seed}")
    check_output_path(args.out)  # before generating: fail at once on a directory
    jobs = generate_trace(profile.name, args.days, args.seed, args.scale, args.starts)
    if is_parquet(args.out):
        write_parquet(jobs, args.out)
    elif "workload" in jobs.columns:  # task-DL and mixed traces keep their task columns
        write_task_trace(jobs, args.out)
    else:
        write_acme_csv(jobs, args.out, profile.cluster)
    gpu = int((jobs["gpu_num"] > 0).sum())
    scaled = f", scale {args.scale:g}" if args.scale != 1 else ""
    written = "normalized Parquet" if is_parquet(args.out) else f"{profile.cluster} schema"
    print(f"wrote {args.out}: {len(jobs)} jobs ({gpu} GPU, {len(jobs) - gpu} CPU), "
          f"{args.days:g} days of profile {profile.name} (seed {args.seed}{scaled}), "
          f"{written}", file=sys.stdout)
    return 0
