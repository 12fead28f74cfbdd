"""``acmesim validate TRACE``: replay a trace's arrivals and compare the queueing with its own.

The trace's GPU jobs are replayed in scheduled mode under the calibrated baseline (``acme``) or
``--scheduler NAME`` on the trace's cluster (``seren`` or ``kalos`` from the file's format, or
``--cluster``); per job type it prints recorded against simulated queue delay (p50 ... p99,
% <= 1 s, ratios, KS distance), then mean and median queueing, mean JCT and the allocated share
of GPU time, each with a pass/fail against the tolerances of ``acmesim.analysis.fidelity``.
``--json`` prints the same machine-readably; ``--plot DIR`` draws recorded-vs-simulated CDFs
per type. Jobs submitted in the trace's first ``--warmup`` seconds are replayed but not
compared: the trace does not hold the jobs submitted before it began, which still held GPUs
while those jobs waited, and the replay starts on an empty cluster (``warmup_seconds``).
On the real Acme files it checks the simulator; on synthetic traces it is the
regression test of the calibration.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acmesim.cluster import CLUSTERS
from acmesim.core.errors import AcmesimError, ConfigError
from acmesim.policies.scheduling import SCHEDULERS

if TYPE_CHECKING:
    from acmesim.analysis import fidelity as fid

# The trace reader, the fidelity analysis (numpy, pandas) and YAML are imported where they are
# used, so that `acmesim validate --help` does not load them.

BASELINE = "acme"
"""The calibrated baseline scheduler (``acmesim/policies/scheduling/acme.py``)."""
WARMUP_SHARE = 0.5
"""The automatic warm-up is at most this share of the trace's submission span [chosen]."""


def warmup_seconds(gpu: Any, given: float | None = None) -> float:
    """Seconds from the trace's first GPU submission whose jobs are not compared.

    ``given`` if set, else the longest recorded run time (a job running when the trace began
    can have held its GPUs that long into it: 14 days on Seren, acme_facts.md §2.1 R-SUM), at
    most ``WARMUP_SHARE`` of the span of submissions [chosen].
    """
    if given is not None:
        if not given >= 0.0:
            raise ConfigError(f"--warmup must be >= 0 s, got {given!r}")
        return float(given)
    span = (gpu["submit_time"].max() - gpu["submit_time"].min()).total_seconds()
    return float(min(gpu["run_time"].max(), WARMUP_SHARE * span))


def after_warmup(frame: Any, warmup: float) -> Any:
    """The rows of a ``fidelity`` frame submitted ``warmup`` seconds or more after its first."""
    keep = frame["submit"] - frame["submit"].min() >= warmup
    return frame[keep].reset_index(drop=True)


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``acmesim validate``."""
    p = argparse.ArgumentParser(
        prog="acmesim validate",
        description="replay a trace's arrivals and compare simulated with recorded queueing",
        epilog="example: acmesim validate trace_seren.csv --plot fidelity_figures")
    p.add_argument("trace", type=Path, help="trace file (any format acmesim reads)")
    p.add_argument("--scheduler", default=BASELINE,
                   help=f"scheduler to replay under (default: the baseline, {BASELINE})")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a scheduler option (YAML value, e.g. caps={Eval:0.1}); repeatable")
    p.add_argument("--cluster", help="cluster preset (default: the trace's, seren or kalos)")
    p.add_argument("--format", default="auto", help="trace format (default: detect)")
    p.add_argument("--seed", type=int, default=0, help="seed of the replay's random streams")
    p.add_argument("--against", choices=("trace", "published"), default="trace",
                   help="compare with the trace's own queue column (default) or with the "
                        "cluster's published queueing (per-type table for Seren, mean and "
                        "median for both clusters)")
    p.add_argument("--warmup", type=float, metavar="SECONDS",
                   help="replay but do not compare the jobs submitted this long after the "
                        "first (default: the longest recorded run time, at most half of "
                        "the trace)")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.add_argument("--plot", type=Path, metavar="DIR",
                   help="draw recorded-vs-simulated queue-delay CDFs per type into DIR")
    p.add_argument("--strict", action="store_true", help="exit with status 1 when a check fails")
    return p


def scheduler_options(pairs: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings as options (values parsed as YAML)."""
    import yaml

    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"--option must be KEY=VALUE, got {pair!r}")
        options[key] = yaml.safe_load(value.replace(":", ": ")) if value else ""
    return options


def trace_cluster(choice: str | None, file_format: str) -> str:
    """The cluster to replay on: ``--cluster``, else the Acme cluster the format names."""
    if choice:
        return choice
    if file_format in CLUSTERS.aliases():
        return file_format
    raise ConfigError(f"cannot tell the cluster of a {file_format!r} trace; give --cluster "
                      f"(one of {', '.join(CLUSTERS.names())})")


def validate(trace: Path, *, scheduler: str = BASELINE, options: dict[str, Any] | None = None,
             cluster: str | None = None, file_format: str = "auto", seed: int = 0,
             against: str = "trace", cluster_options: dict[str, Any] | None = None,
             warmup: float | None = None) -> tuple[fid.Fidelity, dict[str, Any]]:
    """Replay ``trace`` and compare; returns the comparison and what was run.

    ``cluster_options`` are options of the cluster preset (e.g. another ``startup``);
    ``warmup`` seconds of the trace's start are not compared (``warmup_seconds``)."""
    from acmesim import load_trace
    from acmesim.analysis import fidelity as fid
    from acmesim.run.simulate import simulate

    jobs = load_trace(trace, format=file_format)
    report = jobs.attrs.get("load_report")
    name = trace_cluster(cluster, getattr(report, "format", file_format))
    spec = CLUSTERS.create(name, cluster_options).spec
    gpu = jobs[jobs["gpu_num"] > 0].reset_index(drop=True)
    if gpu.empty:
        raise AcmesimError(f"{trace}: the trace has no GPU jobs to replay")
    policy = SCHEDULERS.create(scheduler, options or {})
    result = simulate(gpu, spec, policy, mode="scheduled", seed=seed)
    skip = warmup_seconds(gpu, warmup)
    simulated = after_warmup(fid.simulated_frame(result.jobs), skip)
    recorded = after_warmup(fid.recorded_frame(gpu), skip)
    if simulated.empty:
        raise ConfigError(f"{trace}: no GPU job is submitted after the {skip:,.0f} s warm-up; "
                          f"give a shorter --warmup")
    if against == "published":
        if name.lower() not in fid.PUBLISHED_CLUSTERS:
            raise ConfigError(f"no published queueing for cluster {name!r}; valid: "
                              f"{', '.join(fid.PUBLISHED_CLUSTERS)}")
        comparison = fid.published_fidelity(simulated, name)
    else:
        comparison = fid.fidelity(recorded, simulated, spec.total_gpus)
    run = {"trace": str(trace), "cluster": name, "scheduler": SCHEDULERS.canonical(scheduler),
           "options": options or {}, "seed": seed, "gpu_jobs": len(gpu), "against": against,
           "warmup_s": skip, "compared_jobs": len(simulated),
           "simulated_frame": simulated, "recorded_frame": recorded}
    return comparison, run


def main(argv: list[str]) -> int:
    """Run the validation, print it (and draw it), exit 1 on failure with ``--strict``."""
    args = parser().parse_args(argv)
    from acmesim.analysis import fidelity as fid
    from acmesim.analysis.characterize import to_jsonable

    comparison, run = validate(args.trace, scheduler=args.scheduler,
                               options=scheduler_options(args.option), cluster=args.cluster,
                               file_format=args.format, seed=args.seed, against=args.against,
                               warmup=args.warmup)
    figures = draw(run, args.plot) if args.plot is not None else []
    head = {k: v for k, v in run.items() if not k.endswith("_frame")}
    if args.json:
        data = {**head, **fid.to_dict(comparison), "figures": [str(f) for f in figures]}
        print(json.dumps(to_jsonable(data), indent=2))
    else:
        print(render(head, comparison))
        for figure in figures:
            print(f"figure: {figure}")
    return 1 if args.strict and not comparison.passed else 0


def _num(value: float) -> str:
    """A queue delay for the table: <= 1 s shown as '<=1', else whole seconds."""
    from acmesim.analysis import fidelity as fid

    if math.isnan(value):
        return "-"
    return "<=1" if value <= fid.FLOOR else f"{value:,.0f}"


def render(run: dict[str, Any], result: fid.Fidelity) -> str:
    """The comparison as text tables."""
    from acmesim.analysis import fidelity as fid

    lines = [f"trace {run['trace']}: {run['gpu_jobs']:,} GPU jobs replayed on {run['cluster']} "
             f"under {run['scheduler']} (seed {run['seed']}); {run['compared_jobs']:,} compared, "
             f"those submitted after a warm-up of {run['warmup_s'] / 86400:,.2f} days", "",
             "queue delay (s), " + ("published" if run.get("against") == "published"
                                    else "recorded") + " / simulated:"]
    header = (f"{'type':<9}{'jobs':>8}" + "".join(f" {'p' + str(p):>15}"
                                                  for p in fid.QUEUE_PERCENTILES)
              + f"{'% <= 1 s':>14}{'x p90':>7}{'x p95':>7}{'x p99':>7}{'KS':>6}  verdict")
    lines.append(header)
    for row in result.types:
        cells = "".join(f" {_num(row.recorded[p]) + ' / ' + _num(row.simulated[p]):>15}"
                        for p in fid.QUEUE_PERCENTILES)
        le1 = f"{row.recorded_le1:.1f} / {row.simulated_le1:.1f}"
        ratios = "".join(f"{row.ratios[p]:>7.2f}" for p in fid.RATIO_PERCENTILES)
        verdict = ("FAIL" if not row.passed else "pass*" if row.by_sampling else "pass")
        lines.append(f"{row.type:<9}{row.jobs:>8,}{cells}{le1:>14}{ratios}{row.ks:>6.2f}  "
                     f"{verdict}")
    lines.append("")
    ordering = {None: "n/a (a type is missing)", True: "pass", False: "FAIL"}[result.ordering]
    lines.append(f"p90 ordering Eval > SFT > {{Pretrain, MLLM, Other}} > Debug: {ordering}")
    labels = {"queue_mean": "mean queue delay (s)", "queue_median": "median queue delay (s)",
              "jct_mean": "mean JCT (s)", "allocated_share": "allocated share of GPU time"}
    for key, label in labels.items():
        pair = result.cluster[key]
        fmt = "{:.3f}" if key == "allocated_share" else "{:,.1f}"
        lines.append(f"{label:<28} recorded {fmt.format(pair['recorded']):>12}  simulated "
                     f"{fmt.format(pair['simulated']):>12}  ratio {pair['ratio']:.2f}")
    failures = [*result.failures, *(f for row in result.types for f in row.failures)]
    checks = len(result.types) + 2 + (result.ordering is not None)
    lines.append("")
    lines.append(f"{'PASS' if result.passed else 'FAIL'}: {checks - _failed_checks(result)} "
                 f"of {checks} checks pass (per type, ordering, mean, median)")
    lines.extend(f"  - {f}" for f in failures)
    lines.extend(f"  * {row.type} {', '.join(f'p{p}' for p in row.by_sampling)}: outside the "
                 "factor but inside the 95 % sampling band of the percentile (too few jobs to "
                 "tell them apart; acmesim/analysis/sampling.py)"
                 for row in result.types if row.by_sampling)
    return "\n".join(lines)


def _failed_checks(result: fid.Fidelity) -> int:
    """Failed checks: one per failing type, plus the failing cluster checks."""
    return sum(not row.passed for row in result.types) + len(result.failures)


def draw(run: dict[str, Any], directory: Path) -> list[Path]:
    """One recorded-vs-simulated CDF figure per job type in ``directory``."""
    import numpy as np
    from matplotlib.figure import Figure

    from acmesim.analysis import fidelity as fid
    from acmesim.analysis.plots import cdf_points, save_figure

    directory.mkdir(parents=True, exist_ok=True)
    recorded, simulated = run["recorded_frame"], run["simulated_frame"]
    paths = []
    for name in fid.types_of(recorded):
        fig = Figure(figsize=(5, 3.5))
        ax = fig.subplots()
        for label, frame in (("recorded", recorded), ("simulated", simulated)):
            x, y = cdf_points(frame.loc[frame["type"] == name, "queue"])
            ax.step(np.maximum(x, fid.FLOOR), y, where="post", label=label)
        ax.set(xscale="log", xlabel="queue delay (s), values < 1 s drawn at 1 s",
               ylabel="CDF of jobs (%)", ylim=(0, 100), title=f"{name}: {run['scheduler']}")
        ax.grid(True, linestyle=":")
        ax.legend(fontsize="small")
        paths.append(save_figure(fig, directory / f"queue_cdf_{name}.png"))
    return paths
