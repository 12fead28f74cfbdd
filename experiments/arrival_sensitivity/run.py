"""How the four published arrival statistics move with each chosen parameter of the model.

Generates synthetic Seren traces with one parameter of the submission process changed at a
time (the others at their defaults in ``acmesim/synth/profiles.py``) and prints a
markdown table of the inter-arrival CV, the same-second share, the max/median hourly count and
the top-5 users' share of all jobs (``acmesim.analysis.characterize.burstiness``), and writes
it to ``results/sensitivity.md``.

    python experiments/arrival_sensitivity/run.py [--days 183] [--seeds 1] [--only LABEL ...]

``--only`` measures the named variants alone (``--only defaults``: the defaults' row) and
prints their rows without rewriting ``results/sensitivity.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from pathlib import Path

import numpy as np

from acmesim.analysis.characterize import burstiness
from acmesim.synth.generate import _Generator
from acmesim.synth.profiles import WorkloadProfile, get_profile
from acmesim.trace.targets import SEREN

Change = Callable[[WorkloadProfile], WorkloadProfile]

RESULTS = Path(__file__).resolve().parent / "results"


def eval_group(**changes: object) -> Change:
    """A change of the evaluation batches' group model."""
    def apply(p: WorkloadProfile) -> WorkloadProfile:
        types = tuple(dataclasses.replace(t, group=dataclasses.replace(t.group, **changes))
                      if t.name == "Eval" else t for t in p.types)
        return dataclasses.replace(p, types=types)
    return apply


def cpu_group(**changes: object) -> Change:
    """A change of the CPU sweeps' group model."""
    def apply(p: WorkloadProfile) -> WorkloadProfile:
        group = dataclasses.replace(p.cpu.group, **changes)
        return dataclasses.replace(p, cpu=dataclasses.replace(p.cpu, group=group))
    return apply


def quiet(**changes: object) -> Change:
    """A change of the quiet spells."""
    return lambda p: dataclasses.replace(p, quiet=dataclasses.replace(p.quiet, **changes))


def profile_field(**changes: object) -> Change:
    """A change of a top-level profile field."""
    return lambda p: dataclasses.replace(p, **changes)


VARIANTS: list[tuple[str, Change]] = [
    ("defaults", profile_field()),
    ("user Zipf exponent 1.3 (default 1.395)", profile_field(user_zipf=1.3)),
    ("user Zipf exponent 1.5", profile_field(user_zipf=1.5)),
    ("quiet share 0.06 (default 0.12)", quiet(share=0.06)),
    ("quiet share 0.18", quiet(share=0.18)),
    ("quiet spell median 6 h (default 12 h)", quiet(median=6 * 3600.0)),
    ("quiet spell median 24 h", quiet(median=24 * 3600.0)),
    ("no quiet spells", quiet(share=0.0)),
    ("Eval batches at once 0.15 (default 0.3)", eval_group(at_once=0.15)),
    ("Eval batches at once 0.6", eval_group(at_once=0.6)),
    ("Eval batch sigma 1.3, cap 512 (default 1.8, 1,000)",
     eval_group(size_sigma=1.3, size_max=512)),
    ("CPU sweep cap 10,000 (default 20,000)", cpu_group(size_max=10000)),
    ("CPU sweep cap 40,000", cpu_group(size_max=40000)),
    ("CPU array from 2,000 jobs (default 5,000)", cpu_group(array_min=2000)),
    ("CPU array from 10,000 jobs", cpu_group(array_min=10000)),
    ("CPU sweep sigma 2.5 (default 3.0)", cpu_group(size_sigma=2.5)),
    ("CPU loop gap mean 10 s (default 3 s)", cpu_group(gap_mean=10.0)),
]
"""One row per variant: a label and the change to the Seren profile."""


def measure(profile: WorkloadProfile, days: float, seeds: list[int]) -> np.ndarray:
    """Mean of the four statistics over ``seeds``: CV, same-second, max/median, top-5."""
    keys = ("interarrival_cv", "same_second_share", "max_median_hourly", "top5_user_share")
    rows = [[burstiness(_Generator(profile, days, s).run())[k] for k in keys] for s in seeds]
    return np.mean(np.array(rows, dtype=np.float64), axis=0)


def main() -> None:
    """Print the sensitivity table and write it to ``results/sensitivity.md``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=183.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--only", nargs="+", metavar="LABEL",
                        choices=[label for label, _ in VARIANTS],
                        help="measure these variants only and print them; results/ untouched")
    args = parser.parse_args()
    base = get_profile("seren")
    a = SEREN.arrivals
    lines = [f"Seren, {args.days:g} days, seeds {args.seeds} (mean)", "",
             "| variant | CV | same-second % | max/median hourly | top-5 users % |",
             "|---|---|---|---|---|",
             f"| published | {a['interarrival_cv']:g} | {a['same_second_share'] * 100:.1f} | "
             f"{a['max_median_hourly']:g} | {a['top5_user_share'] * 100:.1f} |"]
    print(*lines, sep="\n", flush=True)
    for label, change in VARIANTS:
        if args.only and label not in args.only:
            continue
        cv, same, ratio, top5 = measure(change(base), args.days, args.seeds)
        lines.append(f"| {label} | {cv:.1f} | {same * 100:.1f} | {ratio:.0f} | "
                     f"{top5 * 100:.1f} |")
        print(lines[-1], flush=True)
    if args.only:
        return
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "sensitivity.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
