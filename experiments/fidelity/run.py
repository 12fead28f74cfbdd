"""Fidelity of the baseline ``acme``: synthetic Seren (183 days, seeds 1-3) and Kalos replays.

Each trace is generated with ``acmesim synth`` (kept in ``runs/``), replayed by the library
entry point of ``acmesim validate`` (``--against published``: the per-type Seren table and the
R-SUM mean and median), and tabulated into ``results/fidelity.csv`` and ``results/table.md``.
``--sensitivity`` also replays one shorter Seren trace with each chosen parameter moved, into
``results/sensitivity.md``; ``--kalos-sensitivity`` (alone) replays the Kalos traces with
Kalos's start-up moved, into ``results/kalos_sensitivity.md``; ``--team-sensitivity`` (alone)
replays the Seren traces with MLLM as a team of its own quota (``acme``'s ``team_quotas``),
into ``results/team_sensitivity.md``; ``--user-sensitivity`` (alone) with a per-user GPU limit
on MLLM and Other (``user_caps``), into ``results/user_sensitivity.md``;
``--batch-sensitivity`` (alone) generates Seren traces whose evaluation batches are bounded in
GPUs (``GroupModel.gpu_max``) and replays them, into ``results/batch_sensitivity.md``;
``--gang-sensitivity`` (alone) replays the Seren traces with Other's multi-node gangs held
until GPUs stay free (``gang_headroom``), into ``results/gang_sensitivity.md``;
``--hold-sensitivity`` (alone) with the share of Other's jobs held by their users and the
longest hold moved (``cluster.eligibility``), into ``results/hold_sensitivity.md``;
``--mllm-sensitivity`` (alone) with MLLM's jobs held by their users and its team quota moved,
into ``results/mllm_sensitivity.md`` (``--seeds 4 5``, ``--cluster kalos``: a file of their
own; ``--only``: the variants whose label starts so). Usage::

    python experiments/fidelity/run.py [--days 183] [--seeds 1 2 3] [--sensitivity]
    python experiments/fidelity/run.py --days 183 --seeds 1 2 3 --kalos-sensitivity
    python experiments/fidelity/run.py --days 183 --seeds 1 2 3 --team-sensitivity
    python experiments/fidelity/run.py --days 183 --seeds 1 2 3 --user-sensitivity
    python experiments/fidelity/run.py --days 183 --seeds 1 2 3 --batch-sensitivity
    python experiments/fidelity/run.py --days 183 --seeds 1 2 3 --gang-sensitivity
    python experiments/fidelity/run.py --days 183 --seeds 1 2 3 --hold-sensitivity
    python experiments/fidelity/run.py --days 183 --seeds 1 2 3 --mllm-sensitivity
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from acmesim import load_trace
from acmesim.cli.commands.validate import validate
from acmesim.core.atomic import atomic_write_csv, atomic_write_text
from acmesim.policies.scheduling.acme import _team_quotas as acme_team_quotas

HERE = Path(__file__).resolve().parent
RUNS = HERE / "runs"
RESULTS = HERE / "results"


def trace(profile: str, days: float, seed: int) -> Path:
    """The synthetic trace of ``profile`` (generated once, through the command line).

    Its arrivals only are used (the replay is compared with the published figures), so it is
    generated with ``--starts packer``: the same submissions without the generator's own
    baseline replay (whose preempted jobs would enter as their last attempts)."""
    path = RUNS / f"{profile}_{days:g}d_seed{seed}.csv"
    if not path.is_file():
        RUNS.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "acmesim.cli", "synth", "--profile", profile,
                        "--days", f"{days:g}", "--seed", str(seed), "--starts", "packer",
                        "--out", str(path)],
                       check=True)
    return path


def rows_of(label: str, result) -> list[dict]:
    """One row per job type plus one for the cluster, as plain numbers."""
    rows = []
    for row in result.types:
        rows.append({"run": label, "type": row.type, "jobs": row.jobs,
                     **{f"sim_p{p}": v for p, v in row.simulated.items()},
                     **{f"pub_p{p}": v for p, v in row.recorded.items()},
                     "sim_le1": row.simulated_le1, "pub_le1": row.recorded_le1,
                     **{f"x_p{p}": v for p, v in row.ratios.items()},
                     "passed": row.passed, "failures": "; ".join(row.failures)})
    mean, median = result.cluster["queue_mean"], result.cluster["queue_median"]
    rows.append({"run": label, "type": "cluster", "sim_mean": mean["simulated"],
                 "pub_mean": mean["recorded"], "sim_median": median["simulated"],
                 "pub_median": median["recorded"], "ordering": result.ordering,
                 "passed": result.passed, "failures": "; ".join(result.failures)})
    return rows


def fmt(value: float) -> str:
    """A queue delay for the tables."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return "<=1" if value <= 1 else f"{value:,.0f}"


def table(frame: pd.DataFrame) -> str:
    """The per-type and cluster tables as Markdown."""
    lines = ["| run | type | p90 sim / pub | p95 sim / pub | p99 sim / pub | % <= 1 s sim / "
             "pub | verdict |", "|---|---|---|---|---|---|---|"]
    for row in frame[frame["type"] != "cluster"].itertuples():
        cells = [f"{fmt(getattr(row, f'sim_p{p}'))} / {fmt(getattr(row, f'pub_p{p}'))}"
                 for p in (90, 95, 99)]
        lines.append(f"| {row.run} | {row.type} | {' | '.join(cells)} | {row.sim_le1:.1f} / "
                     f"{row.pub_le1:.1f} | {'pass' if row.passed else 'FAIL'} |")
    lines += ["", "| run | mean queue sim / pub (s) | median sim / pub (s) | p90 ordering | "
              "cluster checks |", "|---|---|---|---|---|"]
    for row in frame[frame["type"] == "cluster"].itertuples():
        lines.append(f"| {row.run} | {row.sim_mean:,.0f} / {row.pub_mean:,.0f} | "
                     f"{row.sim_median:.1f} / {row.pub_median:.1f} | {row.ordering} | "
                     f"{'pass' if not row.failures else row.failures} |")
    return "\n".join(lines) + "\n"


def _headroom(**changes: int) -> dict:
    """The baseline's best-effort headroom with some types changed."""
    from acmesim.policies.scheduling.acme import _best_effort

    return {"best_effort": {**_best_effort(), **changes}}


def _startup_of(name: str, **fields: float) -> dict:
    """Seren's start-up with one type's row changed."""
    from acmesim.cluster.presets.acme import SEREN_STARTUP

    rows = {t: dict(row) for t, row in SEREN_STARTUP["by_type"].items()}
    rows[name] = {k: v for k, v in {**rows[name], **fields}.items() if v is not None}
    return {"by_type": rows}


def _mllm_through_p95() -> dict:
    """MLLM's start-up fitted through its p95 like the other types."""
    from acmesim.cluster.presets.acme import lognormal_through
    from acmesim.trace.targets import CLUSTERS as PUBLISHED

    seren = PUBLISHED["seren"]
    return _startup_of("MLLM", **lognormal_through(seren.queue_share_le_1["MLLM"],
                                                   seren.queue_percentiles["MLLM"][95]))


SENSITIVITY: list[tuple[str, dict, dict]] = [
    ("defaults", {}, {}),
    ("Debug best-effort (not in the reservation)", {"reserved_debug_above": None}, {}),
    ("only multi-node Debug in the reservation", {"reserved_debug_above": 8}, {}),
    ("Other headroom 512", _headroom(Other=512), {}),
    ("MLLM headroom 0", _headroom(MLLM=0), {}),
    ("MLLM start-up through p95", {}, _mllm_through_p95()),
    ("Pretrain start-up cap 300 s", {}, _startup_of("Pretrain", maximum=None)),
    ("Pretrain start-up cap 600 s", {}, _startup_of("Pretrain", maximum=600.0)),
    ("Pretrain start-up cap 1,800 s", {}, _startup_of("Pretrain", maximum=1800.0)),
]
"""(label, scheduler options, start-up changes) of the sensitivity runs."""


def sensitivity(days: float, seed: int) -> str:
    """Key figures of one Seren trace with each chosen parameter moved."""
    from acmesim.cluster.presets.acme import SEREN_STARTUP
    from acmesim.synth import generate_trace  # noqa: F401 - trace() uses the CLI

    path = trace("seren", days, seed)
    lines = [f"Seren, {days:g} days, seed {seed}; queue delay p90 (s) per type, mean (s), "
             "checks failed of 27", "",
             "| variant | Eval | SFT | Pretrain | MLLM | Other | Debug | Eval % <= 1 s | mean | "
             "failed |", "|---|---|---|---|---|---|---|---|---|---|"]
    for label, options, startup in SENSITIVITY:
        cluster_options = {"startup": {**SEREN_STARTUP, **startup}} if startup else None
        result, _ = validate(path, options=options, against="published",
                             cluster_options=cluster_options)
        p90 = {row.type: row.simulated[90] for row in result.types}
        le1 = next(row.simulated_le1 for row in result.types if row.type == "Eval")
        failed = checks_failed(result)
        lines.append(f"| {label} | " + " | ".join(fmt(p90.get(t, math.nan)) for t in (
            "Eval", "SFT", "Pretrain", "MLLM", "Other", "Debug"))
            + f" | {le1:.1f} | {result.cluster['queue_mean']['simulated']:,.0f} | {failed} |")
    return "\n".join(lines) + "\n"


def _kalos_startup(**fields: float) -> dict:
    """Kalos's start-up with some fields changed."""
    from acmesim.cluster.presets.acme import KALOS_STARTUP

    return {"startup": {**KALOS_STARTUP, **fields}}


KALOS_SENSITIVITY: list[tuple[str, dict]] = [
    ("defaults (sigma 2.249: CPU pods' mean / median 9.82; cap 65,536 s)", {}),
    ("previous: sigma 0.8, cap 300 s", _kalos_startup(sigma=0.8, maximum=300.0)),
    ("sigma 2.137 (CPU pods' ratio, unshifted lognormal)", _kalos_startup(sigma=2.137)),
    ("cap 300 s", _kalos_startup(maximum=300.0)),
    ("cap 3,600 s", _kalos_startup(maximum=3600.0)),
    ("no cap", _kalos_startup(maximum=math.inf)),
]
"""(label, cluster options) of the Kalos start-up sensitivity runs."""


def per_seed_table(title: str, first_column: str, seeds: list[int],
                   variants: Sequence[tuple[str, dict]], cell: Callable[[dict, int], str]) -> str:
    """A Markdown table under ``title``: a row per (label, variant), a column per seed, each
    cell ``cell(variant, seed)``."""
    lines = [title, "", f"| {first_column} | " + " | ".join(f"seed {s}" for s in seeds) + " |",
             "|---|" + "---|" * len(seeds)]
    for label, variant in variants:
        lines.append(f"| {label} | " + " | ".join(cell(variant, seed) for seed in seeds) + " |")
    return "\n".join(lines) + "\n"


def checks_failed(result: Any) -> int:
    """How many checks of a validation result failed (per type and cluster-wide)."""
    return sum(len(row.failures) for row in result.types) + len(result.failures)


def kalos_sensitivity(days: float, seeds: list[int]) -> str:
    """Kalos's mean and median queue per seed with its start-up moved."""
    def cell(cluster_options: dict, seed: int) -> str:
        result, _ = validate(trace("kalos", days, seed), against="published",
                             cluster_options=cluster_options or None)
        mean, median = result.cluster["queue_mean"], result.cluster["queue_median"]
        return f"{mean['simulated']:,.0f} / {median['simulated']:.1f}"

    return per_seed_table(f"Kalos, {days:g} days; mean / median queue delay (s) of GPU jobs "
                          "per seed (published 214 / 17 s, R-SUM)", "variant", seeds,
                          KALOS_SENSITIVITY, cell)


TEAM_QUOTAS: tuple[float, ...] = (0.15, 0.17, 0.2, 0.3)
"""MLLM team quotas (share of the GPUs) of the rule-6 sensitivity runs."""
DEFAULT_TEAM_QUOTA = acme_team_quotas()["MLLM"]
"""``acme``'s default MLLM team quota (rule 6), marked in the table."""


def team_sensitivity(days: float, seeds: list[int]) -> str:
    """MLLM's p90 / p99 and the checks failed per seed with MLLM as a team of its own quota."""
    variants = [("none (MLLM in the pool)", {"team_quotas": {}})] + [
        (f"{q:g} ({q * 2288:,.0f} GPUs){' (default)' if q == DEFAULT_TEAM_QUOTA else ''}",
         {"team_quotas": {"MLLM": q}}) for q in TEAM_QUOTAS]

    def cell(options: dict, seed: int) -> str:
        result, _ = validate(trace("seren", days, seed), options=options, against="published")
        mllm = next(row for row in result.types if row.type == "MLLM")
        return f"{fmt(mllm.simulated[90])} / {fmt(mllm.simulated[99])}, {checks_failed(result)}"

    return per_seed_table(f"Seren, {days:g} days; MLLM as its own team (`acme` rule 6, "
                          "`team_quotas`): MLLM p90 / p99 (s; published 10 / 12,103) and checks "
                          "failed of 27, per seed", "MLLM team quota", seeds, variants, cell)


USER_CAPS: tuple[tuple[str, dict], ...] = (
    ("none (default)", {}),
    ("published type share (Other 173, MLLM 196 GPUs)", {"Other": None, "MLLM": None}),
    ("Other 128, MLLM 448 GPUs", {"Other": 128 / 2288, "MLLM": 448 / 2288}),
    ("Other 96, MLLM 384 GPUs", {"Other": 96 / 2288, "MLLM": 384 / 2288}),
)
"""(label, ``user_caps``) of the rule-7 sensitivity runs (per-user GPU limits, Seren)."""


def user_sensitivity(days: float, seeds: list[int]) -> str:
    """MLLM's and Other's tails and the checks failed per seed with a per-user GPU limit."""
    def cell(caps: dict, seed: int) -> str:
        options = {"user_caps": caps} if caps else {}
        result, _ = validate(trace("seren", days, seed), options=options, against="published")
        row = {r.type: r.simulated for r in result.types}
        return (f"MLLM {fmt(row['MLLM'][90])} / {fmt(row['MLLM'][99])}; Other "
                f"{fmt(row['Other'][95])} / {fmt(row['Other'][99])}; Eval "
                f"{fmt(row['Eval'][99])}; mean "
                f"{result.cluster['queue_mean']['simulated']:,.0f}; {checks_failed(result)}")

    return per_seed_table(f"Seren, {days:g} days; a per-user GPU limit on MLLM and Other "
                          "(`acme` rule 7, `user_caps`): MLLM p90 / p99 (published 10 / 12,103 "
                          "s), Other p95 / p99 (published 68 / > 32,768 s), Eval p99 (4,206 s), "
                          "mean queue (446 s) and checks failed of 27, per seed",
                          "per-user limit", seeds, USER_CAPS, cell)


GANG_HEADROOMS: tuple[tuple[str, dict], ...] = (
    ("none (Other's gangs start on any free nodes; the default)", {"gang_headroom": {}}),
    ("Other gangs of >= 2 nodes leave 256 GPUs", {"gang_headroom": {"Other": 256}}),
    ("Other gangs of >= 2 nodes leave 512 GPUs (the round's choice)",
     {"gang_headroom": {"Other": 512}}),
    ("Other gangs of >= 2 nodes leave 640 GPUs", {"gang_headroom": {"Other": 640}}),
    ("Other gangs of >= 2 nodes leave 1,024 GPUs", {"gang_headroom": {"Other": 1024}}),
    ("Other gangs of >= 4 nodes leave 1,024 GPUs",
     {"gang_headroom": {"Other": 1024}, "gang_min_nodes": 4}),
)
"""(label, ``acme`` options) of the rule-8 sensitivity runs (with the preset's start-up, Other's
fitted without its wait tail, nobody held and unbounded evaluation batches: the round that
measured it; ``gang_sensitivity``): 1,024 GPUs is the largest pretraining job (acme_facts.md
§2.1), 256 and 512 a quarter and a half of it; 4 nodes are Other's box-plot outliers (32 GPUs
and more, §2.3)."""


def gang_sensitivity(days: float, seeds: list[int]) -> str:
    """Other's tail, the mean and the checks failed per seed with Other's gangs held."""
    def cell(options: dict, seed: int) -> str:
        result, _ = validate(batch_trace(days, seed, 0)[0], options=options, against="published",
                             cluster_options=NOBODY_HELD)
        row = {r.type: r.simulated for r in result.types}
        failing = [f.split(":")[0] for r in result.types for f in r.failures] + [
            f.split(":")[0] for f in result.failures]
        return (f"Other {fmt(row['Other'][90])} / {fmt(row['Other'][95])} / "
                f"{fmt(row['Other'][99])}; mean {result.cluster['queue_mean']['simulated']:,.0f}"
                f"; {checks_failed(result)} ({', '.join(failing)})")

    return per_seed_table(f"Seren, {days:g} days; Other's multi-node gangs start only if GPUs "
                          "stay free (`acme` rule 8, `gang_headroom`): Other p90 / p95 / p99 "
                          "(published 15 / 68 / > 32,768 s), mean queue (446 s) and checks "
                          "failed of 27 (which), per seed", "gang rule", seeds, GANG_HEADROOMS,
                          cell)


EVAL_BATCH_BOUNDS: tuple[int, ...] = (0, 2288, 3432, 4576, 6864)
"""GPU bounds of one evaluation batch (``GroupModel.gpu_max``; 0: none) of the batch
sensitivity runs: 1, 1.5, 2 and 3 times Seren's 2,288 GPUs (3 times, 6,864, is the Seren
profile's own, ``profiles.SEREN_EVAL_BATCHES``)."""
NOBODY_HELD = {"eligibility": {}}
"""Cluster options holding no job (the presets hold Other's tail by default)."""


def batch_trace(days: float, seed: int, gpu_max: int) -> tuple[Path, dict[str, float]]:
    """A Seren trace whose evaluation batches hold at most ``gpu_max`` GPUs, and its arrival
    statistics (``burstiness``). Generated in-process from the Seren profile with the bound
    set (``--starts packer``, as ``trace``); the profile's own bound is the default trace
    itself (``trace``, the same bytes)."""
    import dataclasses

    from acmesim.analysis.characterize import burstiness
    from acmesim.synth import generate_trace, get_profile, register_profile
    from acmesim.trace.formats import write_acme_csv

    path = RUNS / f"seren_{days:g}d_seed{seed}_batch{gpu_max}.csv"
    seren = get_profile("seren")
    if all(t.group.gpu_max == gpu_max for t in seren.types if t.group.kind == "batch"):
        path = trace("seren", days, seed)
        return path, burstiness(load_trace(path))
    name = f"seren-batch{gpu_max}"
    types = tuple(dataclasses.replace(t, group=dataclasses.replace(t.group, gpu_max=gpu_max))
                  if t.group.kind == "batch" else t for t in seren.types)
    try:
        register_profile(dataclasses.replace(seren, name=name, types=types))
    except ValueError:  # registered by an earlier seed of this run
        pass
    jobs = generate_trace(name, days, seed, starts="packer")
    stats = burstiness(jobs)
    if not path.is_file():
        RUNS.mkdir(parents=True, exist_ok=True)
        write_acme_csv(jobs, path, "seren")
    return path, stats


def batch_sensitivity(days: float, seeds: list[int]) -> str:
    """Eval's tail, the mean, the checks failed and the arrival statistics per seed with the
    evaluation batches bounded in GPUs."""
    checks: dict[tuple[int, int], str] = {}
    arrivals: dict[tuple[int, int], str] = {}
    for gpu_max in EVAL_BATCH_BOUNDS:
        for seed in seeds:
            path, stats = batch_trace(days, seed, gpu_max)
            result, _ = validate(path, against="published")
            row = {r.type: r.simulated for r in result.types}
            failing = [f.split(":")[0] for r in result.types for f in r.failures] + [
                f.split(":")[0] for f in result.failures]
            checks[gpu_max, seed] = (
                f"Eval {fmt(row['Eval'][95])} / {fmt(row['Eval'][99])}; mean "
                f"{result.cluster['queue_mean']['simulated']:,.0f}; {checks_failed(result)} "
                f"({', '.join(failing)})")
            arrivals[gpu_max, seed] = (
                f"{stats['interarrival_cv']:.1f} / {100 * stats['same_second_share']:.1f} / "
                f"{stats['max_median_hourly']:,.0f} / {100 * stats['top5_user_share']:.1f}")
            print(f"batch bound {gpu_max}, seed {seed}: {checks[gpu_max, seed]}; arrivals "
                  f"{arrivals[gpu_max, seed]}", flush=True)
    variants = [("none" if g == 0 else f"{g:,} GPUs{' (default)' if g == 6864 else ''}",
                 {"gpu_max": g}) for g in EVAL_BATCH_BOUNDS]
    first = per_seed_table(
        f"Seren, {days:g} days; evaluation batches of at most the given GPUs "
        "(`GroupModel.gpu_max`): Eval p95 / p99 (published 809 / 4,206 s), mean queue (446 s) "
        "and checks failed of 27 (which), per seed", "batch bound", seeds, variants,
        lambda v, seed: checks[v["gpu_max"], seed])
    second = per_seed_table(
        "Arrival statistics of the same traces: inter-arrival CV / same-second % / max-median "
        "hourly / top-5 users % (published 14.7 / 32.1 / 272 / 63.7)", "batch bound", seeds,
        variants, lambda v, seed: arrivals[v["gpu_max"], seed])
    return first + "\n" + second


def _holds(share: float, maximum: float = 2.0 ** 16) -> dict:
    """Cluster options holding ``share`` of Other's GPU jobs 2^15 s to ``maximum`` s."""
    return {"eligibility": {"by_type": {"Other": {"share": share, "minimum": 2.0 ** 15,
                                                  "maximum": maximum}}}}


NO_RULE_8 = {"gang_headroom": {}}
"""``acme`` without rule 8 (Other's gangs start on any free nodes; the default)."""
RULE_8 = {"gang_headroom": {"Other": 512}}
"""``acme`` with rule 8 as the previous defaults had it (Other's gangs leave 512 GPUs)."""
HOLD_VARIANTS: tuple[tuple[str, int, dict, dict], ...] = (
    ("no job held, rule 8 on (the previous defaults)", 0, RULE_8, NOBODY_HELD),
    ("no job held, rule 8 off", 0, NO_RULE_8, NOBODY_HELD),
    ("1.2 %, 2^15-2^16 s, rule 8 off", 0, NO_RULE_8, _holds(0.012)),
    ("1.5 %, 2^15-2^16 s, rule 8 off (candidate A)", 0, NO_RULE_8, _holds(0.015)),
    ("1.8 %, 2^15-2^16 s, rule 8 off", 0, NO_RULE_8, _holds(0.018)),
    ("2.0 %, 2^15-2^16 s, rule 8 off", 0, NO_RULE_8, _holds(0.02)),
    ("2.4 % (the published share), 2^15-2^16 s, rule 8 off", 0, NO_RULE_8, _holds(0.024)),
    ("1.5 %, 2^15-2^17 s, rule 8 off", 0, NO_RULE_8, _holds(0.015, 2.0 ** 17)),
    ("1.5 %, 2^15-2^18 s, rule 8 off", 0, NO_RULE_8, _holds(0.015, 2.0 ** 18)),
    ("1.5 %, 2^15-2^16 s, rule 8 on", 0, RULE_8, _holds(0.015)),
    ("evaluation batches <= 6,864 GPUs, no job held, rule 8 on", 6864, RULE_8, NOBODY_HELD),
    ("evaluation batches <= 6,864 GPUs, 1.5 %, 2^15-2^17 s, rule 8 off (candidate B, Other's "
     "defaults)", 6864, NO_RULE_8, _holds(0.015, 2.0 ** 17)),
    ("evaluation batches <= 6,864 GPUs, 2.0 %, 2^15-2^17 s, rule 8 off", 6864, NO_RULE_8,
     _holds(0.02, 2.0 ** 17)),
)
"""(label, evaluation batch bound in GPUs (``batch_trace``; 0: none), ``acme`` options, cluster
options) of the eligibility-delay runs: the share of Other's GPU jobs held by their users, the
log-uniform hold's upper end (``presets.acme.HOLDS``, the presets' default since candidate B
was adopted), rule 8 and the batch bound, each given explicitly."""


PREVIOUS_MLLM_OPTIONS = {"team_quotas": {"MLLM": 0.17}}
"""``acme``'s MLLM quota before MLLM's holds were adopted (the hold table's round)."""


def hold_sensitivity(days: float, seeds: list[int]) -> str:
    """Other's tail, its share above 2^15 s, the mean and the checks failed per seed with Other's
    jobs held by their users (share and longest hold moved), with and without rule 8 and the
    evaluation batch bound, on the MLLM of the round that measured it (``PREVIOUS_MLLM_OPTIONS``,
    none of MLLM held, its start-up through the plain p90)."""
    def cell(variant: tuple[int, dict, dict], seed: int) -> str:
        bound, options, cluster_options = variant
        result, run = validate(batch_trace(days, seed, bound)[0],
                               options={**PREVIOUS_MLLM_OPTIONS, **options},
                               against="published",
                               cluster_options={**startup_without("MLLM", 0.0),
                                                **cluster_options})
        frame = run["simulated_frame"]
        other = frame.loc[frame["type"] == "Other", "queue"]
        row = {r.type: r.simulated for r in result.types}
        failing = [f.split(":")[0] for r in result.types for f in r.failures] + [
            f.split(":")[0] for f in result.failures]
        text = (f"Other {fmt(row['Other'][95])} / {fmt(row['Other'][99])}, "
                f"{100 * (other > 2 ** 15).mean():.2f} % > 2^15 s; "
                f"mean {result.cluster['queue_mean']['simulated']:,.0f}; "
                f"{checks_failed(result)} ({', '.join(failing)})")
        print(f"{variant}, seed {seed}: {text}", flush=True)
        return text

    return per_seed_table(f"Seren, {days:g} days; Other's GPU jobs held by their users "
                          "(`cluster.eligibility`, log-uniform hold from 2^15 s): Other p95 / "
                          "p99 (published 68 / > 32,768 s), its share waiting > 2^15 s "
                          "(published 2.4 %), mean queue (446 s) and checks failed of 27 "
                          "(which), per seed; MLLM as before its holds (quota 0.17, none held)",
                          "share held, hold range, rule 8", seeds,
                          [(label, (b, o, c)) for label, b, o, c in HOLD_VARIANTS], cell)


def mllm_holds(share: float, minimum: float, maximum: float) -> dict:
    """Cluster options holding ``share`` of MLLM's GPU jobs ``minimum`` to ``maximum`` s, on
    top of the presets' own holds (``HOLDS``: Other's)."""
    import copy

    from acmesim.cluster.presets.acme import HOLDS

    holds = copy.deepcopy(HOLDS)
    holds["by_type"].pop("MLLM", None)
    if share > 0.0:
        holds["by_type"]["MLLM"] = {"share": share, "minimum": minimum, "maximum": maximum}
    return {"eligibility": holds}


def share_for_p99(minimum: float, maximum: float, p99: float = 12103.0) -> float:
    """The share held for ``minimum``-``maximum`` s (log-uniform) whose holds alone put 1 % of
    the jobs above ``p99`` (MLLM's published p99, acme_facts.md §2.5): 1 % over the hold's
    mass above it, ``ln(maximum / p99) / ln(maximum / minimum)``."""
    return 0.01 * math.log(maximum / minimum) / math.log(maximum / p99)


MLLM_HOLDS: tuple[tuple[str, float, float, float], ...] = (
    ("none", 0.0, 1.0, 1.0),
    ("1.0 %, 2^13-2^15 s", 0.01, 2.0 ** 13, 2.0 ** 15),
    ("1.39 % (p99), 2^13-2^15 s", round(share_for_p99(2.0 ** 13, 2.0 ** 15), 4),
     2.0 ** 13, 2.0 ** 15),
    ("2.09 % (p99), 2^12-2^15 s", round(share_for_p99(2.0 ** 12, 2.0 ** 15), 4),
     2.0 ** 12, 2.0 ** 15),
)
"""(label, share, shortest, longest hold) of MLLM's held jobs in the MLLM sensitivity runs:
the longest hold is the figure's axis end (2^15 s; unlike Other's, no MLLM share beyond it is
published), the shortest an octave or two below the p99 [chosen], and "(p99)" marks the share
whose holds alone give the published p99 (``share_for_p99``) [derived]."""
MLLM_QUOTAS: tuple[float | None, ...] = (0.17, 0.2, 0.25, 0.3, None)
"""MLLM team quotas (rule 6) of the MLLM sensitivity runs (None: no team, MLLM in the pool)."""


def startup_without(name: str, tail: float) -> dict:
    """Cluster options whose Seren start-up of type ``name`` is fitted leaving out ``tail``
    of its jobs (``published_startup``'s tails, as Other's), the other types the presets'."""
    from acmesim.cluster.presets.acme import (
        SEREN_STARTUP,
        WAIT_TAIL_BY_TYPE,
        published_startup,
    )

    rows = published_startup("seren", {**WAIT_TAIL_BY_TYPE, name: tail})
    return {"startup": {**SEREN_STARTUP, "by_type": rows}}


PREVIOUS_MLLM = ("none", 0.17, False)
"""(hold, quota, start-up of the rest) of the defaults before MLLM's holds were adopted."""
ADOPTED_MLLM = ("1.0 %, 2^13-2^15 s", 0.2, True)
"""(hold, quota, start-up of the rest) of the defaults since (``presets.acme.HOLDS``,
``WAIT_TAIL_BY_TYPE``; ``acme``'s ``team_quotas``)."""


def mllm_variants(cluster: str = "seren") -> list[tuple[str, tuple[dict, dict]]]:
    """(label, (``acme`` options, cluster options)) of every MLLM hold x team quota, and of
    the holds with MLLM's start-up fitted to the jobs not held, each given explicitly (on
    Kalos, which has its own start-up and no MLLM jobs, the holds and quotas only)."""
    variants = []
    for hold, share, low, high in MLLM_HOLDS:
        for refit in (False, True) if share > 0.0 else (False,):
            for quota in MLLM_QUOTAS:
                team = "off" if quota is None else f"{quota:g}"
                mark = {PREVIOUS_MLLM: " (the previous defaults)",
                        ADOPTED_MLLM: " (the defaults)"}.get((hold, quota, refit), "")
                options = {"team_quotas": {} if quota is None else {"MLLM": quota}}
                cluster_options = mllm_holds(share, low, high)
                if cluster == "seren":
                    cluster_options |= startup_without("MLLM", share if refit else 0.0)
                fit = ", start-up of the rest" if refit else ""
                variants.append((f"held {hold}{fit}; quota {team}{mark}",
                                 (options, cluster_options)))
    return variants


def failing(result: Any) -> list[str]:
    """A validation result's failing checks, short, with their values."""
    def short(text: str) -> str:
        name, _, value = text.partition(": ")
        simulated = value.split(" vs ")[0]
        ratio = value.split("(")[-1].rstrip(")") if "(x" in value else ""
        return f"{name} {simulated}{f' ({ratio})' if ratio else ''}"

    return [short(f) for r in result.types for f in r.failures] + [
        short(f) for f in result.failures]


def mllm_cell(days: float, seed: int, options: dict, cluster_options: dict,
              cluster: str = "seren") -> str:
    """One replay's cell of the MLLM table: MLLM p90 / p95 / p99, the mean and the failing
    checks (Kalos: mean / median). Kept in ``runs/cells/`` by its replay's inputs (delete it
    after a change of the code: the key does not see the code)."""
    import hashlib

    key = repr((cluster, days, seed, options, cluster_options)).encode()
    cached = RUNS / "cells" / f"{hashlib.sha1(key).hexdigest()}.txt"
    if cached.is_file():
        return cached.read_text()
    text = _mllm_cell(days, seed, options, cluster_options, cluster)
    cached.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(cached, text)
    return text


def _mllm_cell(days: float, seed: int, options: dict, cluster_options: dict,
               cluster: str) -> str:
    """``mllm_cell``, replayed."""
    result, _ = validate(trace(cluster, days, seed), options=options, against="published",
                         cluster_options=cluster_options)
    mean = result.cluster["queue_mean"]["simulated"]
    if cluster == "kalos":
        median = result.cluster["queue_median"]["simulated"]
        text = f"{mean:,.0f} / {median:.1f}; {checks_failed(result)}"
    else:
        mllm = next(row.simulated for row in result.types if row.type == "MLLM")
        text = (f"MLLM {fmt(mllm[90])} / {fmt(mllm[95])} / {fmt(mllm[99])}; mean {mean:,.0f}; "
                f"{checks_failed(result)} ({', '.join(failing(result))})")
    print(f"{cluster} seed {seed} {options} {cluster_options}: {text}", flush=True)
    return text


def mllm_sensitivity(days: float, seeds: list[int], only: Sequence[str] = (),
                     cluster: str = "seren") -> str:
    """MLLM's tail, the mean and the failing checks per seed for every MLLM hold x team quota
    (``only``: the variants whose label starts with one of these)."""
    variants = [(label, v) for label, v in mllm_variants(cluster)
                if not only or any(label.startswith(o) for o in only)]
    what = ("mean / median queue (s; published 214 / 17) and checks failed" if cluster ==
            "kalos" else "MLLM p90 / p95 / p99 (s; published 10 / 147 / 12,103), mean queue "
            "(446 s) and checks failed of 27 (which, with their values)")
    return per_seed_table(
        f"{cluster.capitalize()}, {days:g} days; MLLM's GPU jobs held by their users "
        f"(`cluster.eligibility` by_type MLLM, log-uniform, on top of Other's `HOLDS`) x "
        f"MLLM's team quota (`acme` rule 6): {what}, per seed", "MLLM held, team quota",
        seeds, variants,
        lambda v, seed: mllm_cell(days, seed, v[0], v[1], cluster))


SENSITIVITIES: dict[str, Callable[[float, list[int]], str]] = {
    "hold_sensitivity": hold_sensitivity,
    "gang_sensitivity": gang_sensitivity,
    "batch_sensitivity": batch_sensitivity,
    "user_sensitivity": user_sensitivity,
    "team_sensitivity": team_sensitivity,
    "kalos_sensitivity": kalos_sensitivity,
}
"""The tables run alone (``--NAME`` with dashes), each written to ``results/NAME.md``."""


def main(argv: list[str] | None = None) -> int:
    """Run the validation replays and write the tables."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--days", type=float, default=183.0)
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--sensitivity", action="store_true")
    p.add_argument("--sensitivity-days", type=float, default=30.0)
    p.add_argument("--kalos-sensitivity", action="store_true",
                   help="only the Kalos start-up sensitivity (results/kalos_sensitivity.md)")
    p.add_argument("--team-sensitivity", action="store_true",
                   help="only the MLLM team-quota sensitivity (results/team_sensitivity.md)")
    p.add_argument("--user-sensitivity", action="store_true",
                   help="only the per-user GPU limit sensitivity (results/user_sensitivity.md)")
    p.add_argument("--batch-sensitivity", action="store_true",
                   help="only the evaluation batch bound sensitivity "
                        "(results/batch_sensitivity.md)")
    p.add_argument("--gang-sensitivity", action="store_true",
                   help="only the Other gang headroom sensitivity (results/gang_sensitivity.md)")
    p.add_argument("--hold-sensitivity", action="store_true",
                   help="only the eligibility delay sensitivity (results/hold_sensitivity.md)")
    p.add_argument("--mllm-sensitivity", action="store_true",
                   help="only the MLLM hold x team quota sensitivity "
                        "(results/mllm_sensitivity.md)")
    p.add_argument("--only", nargs="+", default=[],
                   help="with --mllm-sensitivity: only the variants whose label starts so")
    p.add_argument("--cluster", default="seren", choices=("seren", "kalos"),
                   help="with --mllm-sensitivity: the cluster replayed")
    args = p.parse_args(argv)
    if args.mllm_sensitivity:
        text = mllm_sensitivity(args.days, args.seeds, args.only, args.cluster)
        name = ("mllm_sensitivity" + ("" if args.cluster == "seren" else f"_{args.cluster}")
                + ("" if args.seeds == [1, 2, 3] else "_seeds" + "-".join(map(str, args.seeds))))
        atomic_write_text(RESULTS / f"{name}.md", text)
        print(text)
        return 0
    for flag, make in SENSITIVITIES.items():
        if getattr(args, flag):
            text = make(args.days, args.seeds)
            atomic_write_text(RESULTS / f"{flag}.md", text)
            print(text)
            return 0
    rows: list[dict] = []
    for profile in ("seren", "kalos"):
        for seed in args.seeds:
            label = f"{profile} {args.days:g}d seed {seed}"
            result, _ = validate(trace(profile, args.days, seed), against="published")
            rows += rows_of(label, result)
            print(f"{label}: {'pass' if result.passed else 'FAIL'}", flush=True)
    frame = pd.DataFrame(rows)
    RESULTS.mkdir(parents=True, exist_ok=True)
    atomic_write_csv(RESULTS / "fidelity.csv", frame)
    atomic_write_text(RESULTS / "table.md", table(frame))
    print(table(frame))
    if args.sensitivity:
        text = sensitivity(args.sensitivity_days, args.seeds[0])
        atomic_write_text(RESULTS / "sensitivity.md", text)
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
