"""Power and energy: a hand-worked replay, conservation under every plug-in, power=none, config."""

from __future__ import annotations

import dataclasses
import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from factories import by_id, cluster, frame, job
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from acmesim.core.config import Choice, ReplayConfig
from acmesim.faults import FaultInjector
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.checkpoint.base import CheckpointPlan
from acmesim.policies.failure import FAILURES
from acmesim.policies.power import POWERS
from acmesim.policies.recovery import RECOVERIES
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.results.schema import JOBS, SUMMARY, UTILIZATION
from acmesim.run import run_replay, simulate

KWH = 3.6e6
ENERGY_FIELDS = [c.name for c in SUMMARY.columns if c.unit == "kWh"]

# GPU 100 W idle and waiting, 300 W at full utilization; 40 W per 8-GPU server; 80% efficient
SIMPLE = {"gpu_idle_w": 100.0, "gpu_peak_w": 300.0, "cpu_idle_w": 0.0, "cpu_peak_w": 0.0,
          "memory_w": 40.0, "nic_w": 0.0, "nvme_w": 0.0, "efficiency": 0.8}


class ExactPlan:
    """Checkpoint every 100 s of work, 10 s sync stall, 10 s restore."""

    def plan(self, job, mtbf=None):
        return CheckpointPlan(100.0, 10.0, 0.0, 10.0, 0.0, 0.0, "sync", math.inf)


def failure_trace(folder: Path, rows: list[str]):
    path = folder / "faults.csv"
    path.write_text("\n".join(["time,node,kind,repair_time", *rows]) + "\n")
    return FAILURES.create("trace", {"path": str(path)})


def test_a_failure_and_checkpoint_stalls_cost_exactly_the_hand_computed_energy(tmp_path):
    trace = frame([job(0, 1000, 8, type="Pretrain")]).assign(gpu_util=0.5)  # 200 W computing
    injector = FaultInjector(failure_trace(tmp_path, ["250,n0000,node_failure,1000"]),
                             ExactPlan(), RECOVERIES.create("automatic", {"manual_fraction": 0.0}))
    result = simulate(trace, cluster(2), extensions=[injector], audit=True,
                      power=POWERS.create("linear", SIMPLE), utilization_interval=500.0)
    # timeline (test_fault_injection): computes 0-250 (20 s of it stalled), fault at 250, held
    # until 730, restarts on n0001: 310 s overhead, then 800 s work + 70 s stalls, ends 1910
    j0 = by_id(result.jobs)["j0"]
    assert j0["end_time"] == 1910 and j0["run_time"] == 1430
    computing, waiting = 230 + 800, 20 + 310 + 70
    idle_gs = 16 * 1910 - 8 * 1430
    share = 40 / 8  # the server's other draw per GPU
    idle_j = (100 * idle_gs + share * idle_gs) / 0.8
    waiting_j = (100 + share) * 8 * waiting / 0.8
    running_j = (200 + share) * 8 * computing / 0.8
    s = result.summary
    assert s["energy_idle_kwh"] * KWH == pytest.approx(idle_j)
    assert s["energy_waiting_kwh"] * KWH == pytest.approx(waiting_j)
    assert s["energy_running_kwh"] * KWH == pytest.approx(running_j)
    assert s["energy_kwh"] * KWH == pytest.approx(5_041_000.0)
    assert s["energy_gpu_kwh"] * KWH == pytest.approx(100 * idle_gs + 100 * 8 * waiting
                                                      + 200 * 8 * computing)
    assert s["gpu_server_power_mean_w"] == pytest.approx(5_041_000.0 / (2 * 1910))
    # lost to the failure: 30 s x 8 GPUs rolled back, 310 s x 8 held restarting; 90 s stalls
    assert s["energy_lost_rollback_kwh"] * KWH == pytest.approx(240 * 205 / 0.8)
    assert s["energy_lost_recovery_kwh"] * KWH == pytest.approx(8 * 310 * 105 / 0.8)
    assert s["energy_lost_checkpoint_kwh"] * KWH == pytest.approx(8 * 90 * 105 / 0.8)
    assert s["energy_lost_failures_kwh"] * KWH == pytest.approx((240 * 205 + 8 * 400 * 105)
                                                                / 0.8)
    assert j0["energy_kwh"] * KWH == pytest.approx(waiting_j + running_j)
    # per interval: in [500, 1000) the job is held until 730, then restarts (waiting) to 1040
    u = result.utilization.set_index("interval_start")
    assert u.loc[500.0, "power_running_kw"] == pytest.approx(0.0)
    assert u.loc[500.0, "power_waiting_kw"] * 1000 * 500 == pytest.approx(
        (100 + share) * 8 * 270 / 0.8)
    assert u.loc[500.0, "power_idle_kw"] * 1000 * 500 == pytest.approx(
        (100 + share) * (16 * 500 - 8 * 270) / 0.8)
    widths = result.utilization["interval_end"] - result.utilization["interval_start"]
    assert (result.utilization["power_kw"] * widths).sum() * 1000 == pytest.approx(5_041_000.0)


def test_power_none_leaves_every_energy_column_empty_and_changes_nothing_else():
    trace = frame([job(0, 500, 8), job(10, 300, 4), job(20, 100, 16, 2)])
    plain = simulate(trace, cluster(2))
    powered = simulate(trace, cluster(2), power="acme")
    assert plain.summary["power"] == "none"
    assert all(plain.summary.get(name) is None for name in ENERGY_FIELDS)
    assert plain.jobs["energy_kwh"].isna().all()
    power_columns = [c for c in UTILIZATION.names if c.startswith("power_")]
    assert plain.utilization[power_columns].isna().all().all()
    # the power model observes: the schedule and every other column are the same
    other = [c for c in JOBS.names if c != "energy_kwh"]
    pd.testing.assert_frame_equal(plain.jobs[other], powered.jobs[other])
    assert powered.jobs["energy_kwh"].gt(0).all()


def test_the_power_group_is_a_config_choice_written_to_the_summary(tmp_path):
    trace = frame([job(0, 500, 8)])
    config = ReplayConfig(power=Choice("linear", {"gpu_peak_w": 350.0}), progress=False)
    out = run_replay(config, tmp_path, jobs=trace)
    assert out.error is None
    summary = pd.read_csv(out.paths["summary"])
    assert summary.loc[0, "power"] == "linear" and summary.loc[0, "energy_kwh"] > 0
    assert pd.read_csv(out.paths["utilization"])["power_kw"].gt(0).all()
    with pytest.raises(Exception, match="power"):
        POWERS.create("acme", {"no_such_option": 1})
    assert POWERS.canonical("raps") == "linear"


def test_jobs_without_gpu_util_draw_it_from_a_named_stream_and_given_ones_are_kept():
    trace = frame([job(0, 500, 8), job(0, 500, 8)])
    drawn = simulate(trace, cluster(2), power="linear", seed=3)
    again = simulate(trace, cluster(2), power="linear", seed=3)
    assert drawn.summary["power_utilization_drawn_jobs"] == 2
    np.testing.assert_array_equal(drawn.job_power["gpu_util"], again.job_power["gpu_util"])
    given_util = simulate(trace.assign(gpu_util=[0.25, 1.0]), cluster(2), power="linear")
    assert given_util.summary["power_utilization_drawn_jobs"] == 0
    # linear (RAPS): 88 + (400 - 88) x util
    np.testing.assert_allclose(given_util.job_power["running_w"], [166.0, 400.0])


# ---------------------------------------------------------------------------- conservation
jobs_strategy = st.lists(st.tuples(
    st.integers(0, 2000), st.integers(1, 3000),
    st.sampled_from([(1, 1), (4, 1), (8, 1), (16, 2)]),
    st.sampled_from(["Pretrain", "Eval", "SFT"]),
), min_size=1, max_size=8)
faults_strategy = st.lists(st.tuples(st.integers(0, 5000), st.integers(0, 3),
                                     st.sampled_from(["node_failure", "nccl_timeout"])),
                           max_size=4)
RATES = {"exponential": {"node_mtbf_hours": 1.0}, "weibull": {"node_mtbf_hours": 1.0},
         "acme": {"gpu_failures_per_1000_gpu_days": 2_000.0}}  # node MTBF 1.5 h


def _failure_model(name: str, faults) -> object:
    if name != "trace":
        return FAILURES.create(name, RATES.get(name))
    with tempfile.TemporaryDirectory() as folder:
        rows = [f"{t},n{node:04d},{kind},600" for t, node, kind in faults]
        return failure_trace(Path(folder), rows)


@pytest.mark.parametrize("failure", FAILURES.names())
@pytest.mark.parametrize("scheduler", SCHEDULERS.names())
@settings(max_examples=3, deadline=None, phases=[Phase.explicit, Phase.generate])
@given(jobs=jobs_strategy, faults=faults_strategy, interval=st.sampled_from([300.0, 3600.0]))
def test_energy_is_conserved_under_every_scheduler_and_failure_model(scheduler, failure, jobs,
                                                                     faults, interval):
    rows = [job(s, r, g, n, type=t) for s, r, (g, n), t in jobs]
    injector = FaultInjector(_failure_model(failure, faults),
                             CHECKPOINTS.create("fixed", {"interval_min": 5.0}),
                             RECOVERIES.create("automatic"))
    result = simulate(frame(rows), cluster(4), SCHEDULERS.create(scheduler),
                      extensions=[injector], power="acme", utilization_interval=interval, seed=2)
    s, u = result.summary, result.utilization
    states = s["energy_idle_kwh"] + s["energy_waiting_kwh"] + s["energy_running_kwh"]
    assert states == pytest.approx(s["energy_kwh"], rel=1e-9)
    widths = u["interval_end"] - u["interval_start"]
    assert (u["power_kw"] * widths).sum() / 3600 == pytest.approx(s["energy_kwh"], rel=1e-9)
    parts = u[["power_idle_kw", "power_waiting_kw", "power_running_kw"]].sum(axis=1)
    np.testing.assert_allclose(parts, u["power_kw"], rtol=1e-9)
    # every state draws at least its idle floor, and waiting never goes below zero
    assert (u[["power_idle_kw", "power_waiting_kw", "power_running_kw"]] >= -1e-9).all().all()
    assert s["energy_lost_failures_kwh"] <= s["energy_waiting_kwh"] + s["energy_running_kwh"] \
        + 1e-9
    if s["failures"] == 0:  # see the regression case below for interrupted jobs
        assert_jobs_drew_what_the_held_gpus_drew(result)


def assert_jobs_drew_what_the_held_gpus_drew(result):
    """The jobs' energy (their intervals) equals the held GPUs' energy (the step curve)."""
    s = result.summary
    gpu_jobs = result.jobs[result.jobs["pool"] == "gpu"]
    assert gpu_jobs["energy_kwh"].sum() == pytest.approx(
        s["energy_waiting_kwh"] + s["energy_running_kwh"], rel=1e-9, abs=1e-12)


def test_power_follows_the_utilization_step_of_a_job_held_after_a_fault():
    rows = [job(563, 2203, 8, type="SFT"), job(1422, 2773, 16, 2, type="SFT")]
    injector = FaultInjector(FAILURES.create("exponential", {"node_mtbf_hours": 1.0}),
                             CHECKPOINTS.create("none"), RECOVERIES.create("automatic"))
    result = simulate(frame(rows), cluster(4), extensions=[injector], power="acme", seed=2)
    assert result.summary["failures"] > 0
    assert_jobs_drew_what_the_held_gpus_drew(result)


def test_plot_of_a_powered_run_draws_power_by_state(tmp_path, capsys):
    from png_checks import assert_png

    from acmesim.cli import main

    trace = frame([job(0, 5000, 8), job(100, 3000, 16, 2), job(4000, 2000, 4)])
    config = ReplayConfig(power=Choice("acme"), utilization_interval=600.0, progress=False)
    assert run_replay(config, tmp_path / "run", jobs=trace).error is None
    assert main(["plot", str(tmp_path / "run")]) == 0
    printed = {Path(line).name: Path(line) for line in capsys.readouterr().out.split()}
    assert "power.png" in printed
    assert_png(printed["power.png"])
    plain = run_replay(ReplayConfig(progress=False), tmp_path / "plain", jobs=trace)
    assert plain.error is None
    main(["plot", str(tmp_path / "plain")])
    assert "power.png" not in capsys.readouterr().out


# ---------------------------------------------------------------------------- calibration
@pytest.fixture(scope="module")
def short_seren():
    """A 12-day calibration replay (synthetic Seren at the logged month's load, recorded
    starts, no failures)."""
    from calibration.energy import replay

    return replay(days=12, seed=1)


def test_on_a_short_seren_replay_at_the_logged_load_the_calibration_criteria_hold(
        short_seren):
    from calibration.energy import DAY, TARGETS, measure, samples

    result, model = short_seren
    s = samples(result, 5 * DAY, 12 * DAY)
    # a genuine replay at the logged month's load: the criteria of the brief hold together at
    # this small scale (median, p90, idle share, GPU-server mean), and the server median,
    # p90 and maximum (the fit was on 183 days; these 7 days are other jobs). A week's idle
    # share is one draw of the workload's lulls (30-day windows spread by about 0.07 at this
    # load, docs/energy.md): this seed's days 5-12 hold it, and the model's part of it is
    # checked exactly below; the calibration holds the expectation, over 169 days per seed
    measured = measure(s, model)
    by_name = {t.name: t for t in TARGETS}
    for name in ("gpu_power_median_w", "gpu_power_p90_w", "idle_share", "server_power_mean_w",
                 "server_power_median_w", "server_power_p90_w", "server_power_max_w"):
        assert measured[name] == pytest.approx(by_name[name].value, rel=0.15), name
    # the samples <= 70 W are the replay's unallocated GPUs plus held ones near idle draw
    u = result.utilization
    window = u[(u["interval_start"] >= 5 * DAY) & (u["interval_end"] <= 12 * DAY)]
    unallocated = 1.0 - window["busy_gpus"].mean() / result.summary["cluster_gpus"]
    assert measured["unallocated_share"] == pytest.approx(unallocated, rel=1e-9)
    assert measured["idle_share"] == pytest.approx(
        unallocated + measured["allocated_low_share"], rel=1e-9)


def test_a_higher_load_is_more_gpu_jobs_on_the_same_cluster_and_the_same_cpu_jobs():
    from acmesim.core.errors import ConfigError
    from acmesim.sources import TRACES
    from acmesim.synth import generate_trace

    base = generate_trace("seren", 4, 3, starts="packer")
    busy = generate_trace("seren", 4, 3, starts="packer", load=1.3)
    gpu = (base["gpu_num"] > 0).sum(), (busy["gpu_num"] > 0).sum()
    assert gpu[1] / gpu[0] == pytest.approx(1.3, rel=0.1)
    assert (busy["gpu_num"] == 0).sum() == (base["gpu_num"] == 0).sum()
    # a trace at the profile's own load keeps its cache key; another load has its own
    options = TRACES.create("synthetic", {"days": 4, "seed": 3}).generator_options()
    assert "load" not in options
    assert TRACES.create("synthetic", {"days": 4, "load": 1.3}).generator_options()[
        "load"] == 1.3
    with pytest.raises(ConfigError, match="load must be in"):
        generate_trace("seren", 4, 3, load=0)
    with pytest.raises(ConfigError, match="load"):
        generate_trace("taskdl", 4, 3, load=1.3)


def test_the_busy_server_breakdown_is_the_hand_computed_one():
    from calibration.energy import Samples, busy_breakdown

    # one server; job 0 holds 4 GPUs over [0, 10) at 100 W, job 1 the other 4 over [5, 10)
    # at 300 W; window [0, 20): all 8 GPUs are held over [5, 10) only
    nodes = pd.DataFrame({"job": [0, 1], "node": [0, 0], "slot": [0, 1], "gpus": [4.0, 4.0],
                          "lo": [0.0, 5.0], "hi": [10.0, 10.0]})
    s = Samples(np.ones(2), np.ones(2, dtype=np.int64), nodes, 1, 0.0, 20.0, ((1, 2),))
    model = POWERS.create("acme", {"cpu_w": 328.0, "other_w": 894.0})
    out = busy_breakdown(s, np.array([100.0, 300.0]), model)
    gpu_w = 8 * 60.0 + 4 * 40.0 + 4 * 240.0  # 1,600 W over [5, 10)
    share = 0.904 * gpu_w / (gpu_w + 328.0 + 894.0)  # of the wall draw: the loss included
    assert out["server_gpu_share_full"] == pytest.approx(share, rel=1e-12)
    assert out["server_gpu_share_top"] == pytest.approx(share, rel=1e-12)  # the top decile
    assert out["server_full_share"] == pytest.approx(5 / 20, rel=1e-12)
    assert out["server_power_mean_full_w"] == pytest.approx((gpu_w + 1222.0) / 0.904)
    assert out["server_cpu_share_full"] == pytest.approx(0.904 * 328.0 / (gpu_w + 1222.0),
                                                         rel=1e-12)


def test_the_calibration_draws_are_the_runs_and_integrate_to_its_own_energy(short_seren):
    from calibration.energy import (
        fitted_other_w,
        measure,
        model_draws,
        samples,
        server_distribution,
    )

    result, model = short_seren
    end = result.summary["simulated_span"]
    s = samples(result, 0.0, end)
    draws = model_draws(model, s)  # one per (job, server): the run's per-server intensities
    # each job's GPU-weighted mean over its servers is the run's own draw (to the milliwatt
    # its load carries)
    job, gpus = s.nodes["job"].to_numpy(), s.nodes["gpus"].to_numpy()
    mean = np.bincount(job, weights=draws * gpus) / np.bincount(job, weights=gpus)
    ran = np.bincount(job, minlength=len(mean)) > 0
    np.testing.assert_allclose(mean[ran], result.job_power["running_w"].to_numpy()[ran],
                               rtol=0, atol=0.0005 + 1e-9)
    multi = s.job_servers[job] > 1  # the servers of a gang draw differently
    assert np.unique(draws[multi]).size > 0.9 * multi.sum()
    measured = measure(s, model, draws)
    # the mean server draw of the samples is the summary's (no failures: no waiting), but for
    # the milliwatt rounding of each job's load
    assert measured["server_power_mean_w"] == pytest.approx(
        result.summary["gpu_server_power_mean_w"], rel=1e-6)
    # the per-server distribution is a split of the same energy
    wall, seconds = server_distribution(s, draws, model)
    assert seconds.sum() == pytest.approx(s.servers * end, rel=1e-12)
    assert np.dot(wall, seconds) / seconds.sum() == pytest.approx(
        measured["server_power_mean_w"], rel=1e-9)
    # other_w in closed form makes the server mean the published one exactly
    fitted = POWERS.create("acme", {"other_w": fitted_other_w(model,
                                                              measured["gpu_power_mean_w"])})
    assert measure(s, fitted, draws, servers=False)["server_power_mean_w"] == pytest.approx(
        2930.0, rel=1e-12)


def test_the_load_is_fitted_on_the_mean_idle_share_of_the_fit_seeds_not_on_one_seed():
    from calibration.energy import PUBLISHED_IDLE, choose_load

    # seed 1 alone would pick 1.3 (0.292); the mean of the three seeds picks 1.25
    shares = {1.2: [0.341, 0.330, 0.320], 1.25: [0.310, 0.300, 0.262],
              1.3: [0.292, 0.281, 0.241]}
    assert choose_load({load: v[:1] for load, v in shares.items()}) == 1.3
    assert choose_load(shares) == 1.25
    # the grid's order does not matter, only the distance of each mean to the published share
    assert choose_load({1.3: [PUBLISHED_IDLE - 0.01], 1.2: [PUBLISHED_IDLE + 0.03]}) == 1.3


def test_the_calibration_table_marks_each_seed_fit_or_held_out(short_seren, monkeypatch,
                                                               capsys):
    import calibration.energy as cal

    replayed = []
    monkeypatch.setattr(cal, "replay", lambda days, seed, load: replayed.append(
        (seed, load)) or short_seren)
    monkeypatch.setattr(cal, "window", lambda name, days: (5 * cal.DAY, 12 * cal.DAY))
    assert cal.main(["--days", "12", "--seeds", "1", "4", "--fit-seeds", "1",
                     "--load", "1.25"]) == 0
    out = capsys.readouterr().out
    assert replayed == [(1, 1.25), (4, 1.25)]
    assert "seed 1 (fit) (12 days at load 1.25, days 5-12)" in out
    assert "seed 4 (held out)" in out and "pooled" not in out
    # each seed's table, then the table of every seed (each seed a column) and the verdict
    assert out.count("idle_share") == 3
    assert "| seed 1 (fit) | seed 4 (held out) | mean +- s.e. |" in out
    assert out.rstrip().splitlines()[-1].startswith("PASS: all 9 criteria")
    assert "idle share of each" not in out  # --split not asked for
    # a criterion that fails on a seed fails the calibration: exit status 1, named
    monkeypatch.setattr(cal, "TARGETS", (cal.Target("idle_share", 0.9, True, "moved"),))
    assert cal.main(["--days", "12", "--seeds", "1", "--fit-seeds", "1"]) == 1
    assert capsys.readouterr().out.rstrip().splitlines()[-1].startswith(
        "FAIL: idle_share on seed(s) 1")


def test_the_verdict_needs_every_criterion_on_every_seed_and_reports_the_mean():
    from calibration.energy import markdown, seed_table, verdict

    measured = {1: {"idle_share": 0.29, "gpu_power_median_w": 96.0},
                5: {"idle_share": 0.35, "gpu_power_median_w": 100.0}}
    summary = seed_table(measured).set_index("criterion")
    assert list(summary.index) == ["idle_share", "gpu_power_median_w"]  # the measured ones
    idle = summary.loc["idle_share"]
    assert (idle["seed 1"], idle["seed 5"]) == (0.29, 0.35)
    assert idle["mean"] == pytest.approx(0.32, rel=1e-12)
    assert idle["se"] == pytest.approx(0.03, rel=1e-12)  # two seeds: |a - b| / 2
    assert idle["mean_error"] == pytest.approx(0.32 / 0.29 - 1, rel=1e-12)
    # seed 5 is +20.7% (fails), the mean +10.3% (holds); the median holds on both (+4.2%)
    assert idle["failing"] == "5" and not idle["every_seed"] and idle["mean_within"]
    assert summary.loc["gpu_power_median_w", "every_seed"]
    passed, sentence = verdict(seed_table(measured))
    assert not passed
    assert sentence == ("FAIL: idle_share on seed(s) 5 (mean over the seeds 0.32, +10.3%: "
                        "within 15%)")
    table = markdown(seed_table(measured), fit_seeds=[1])
    assert "| idle_share | 0.290 | fit | 0.290 (+0.0%) | **0.350 (+20.7%)** | " in table
    assert "seed 5 (held out)" in table and "0.320 +- 0.030 (+10.3%)" in table
    # one seed inside 15% everywhere passes; one far out fails even if the mean holds
    measured[5]["idle_share"] = 0.333
    assert verdict(seed_table(measured)) == (
        True, "PASS: all 2 criteria within their tolerance on every seed (1, 5)")
    measured[1]["idle_share"], measured[5]["idle_share"] = 0.20, 0.38
    assert not verdict(seed_table(measured))[0]
    with pytest.raises(ValueError, match="no criterion"):
        verdict(seed_table({1: {}}))


def test_the_parts_of_a_window_are_its_clipped_rows_and_their_spread_is_hand_computed():
    from calibration.energy import DAY, Samples, clipped, split_shares, spread

    # one server of 8 GPUs; window days [0, 3): job 0 holds 8 GPUs over days [0, 1.5), job 1
    # 4 GPUs over [1.5, 3); at utilization 1 every held GPU draws >= 80 W (above the 70 W line)
    nodes = pd.DataFrame({"job": [0, 1], "node": [0, 0], "slot": [0, 1], "gpus": [8.0, 4.0],
                          "lo": [0.0, 1.5 * DAY], "hi": [1.5 * DAY, 3 * DAY]})
    s = Samples(np.ones(2), np.ones(2, dtype=np.int64), nodes, 1, 0.0, 3 * DAY, ((1, 2),))
    model = POWERS.create("acme")
    part = clipped(s, 1.0 * DAY, 2.0 * DAY)
    assert (part.start, part.end) == (DAY, 2 * DAY)
    assert part.nodes[["job", "slot", "lo", "hi"]].values.tolist() == [
        [0, 0, DAY, 1.5 * DAY], [1, 1, 1.5 * DAY, 2 * DAY]]
    assert clipped(s, 2 * DAY, 3 * DAY).nodes["job"].tolist() == [1]  # job 0 is outside
    # idle: day 0 none, day 1 half a day of 4 GPUs of 8, day 2 4 of 8 GPUs all day
    assert split_shares(s, model, 1.0) == pytest.approx([0.0, 0.25, 0.5], abs=1e-12)
    assert split_shares(s, model, 2.0) == pytest.approx([0.125], abs=1e-12)  # 1 day left out
    with pytest.raises(ValueError, match="not inside the window"):
        clipped(s, 2 * DAY, 4 * DAY)
    out = spread([0.0, 0.25, 0.5, 0.29])
    assert out["windows"] == 4 and out["outside"] == 2  # 0.25 (-13.8%) and 0.29 are within
    assert out["mean"] == pytest.approx(0.26, rel=1e-12)
    assert out["sd"] == pytest.approx(np.std([0.0, 0.25, 0.5, 0.29], ddof=1), rel=1e-12)
    assert (out["min"], out["max"]) == (0.0, 0.5)


def test_the_august_window_is_days_153_to_183_and_needs_a_183_day_replay():
    from calibration.energy import DAY, window

    assert window("august", 183) == (153 * DAY, 183 * DAY)
    assert window("steady", 60) == (14 * DAY, 60 * DAY)
    with pytest.raises(SystemExit, match="--days 183"):
        window("august", 60)


def test_a_held_gpu_at_utilization_zero_draws_as_an_idle_one():
    model = POWERS.create("acme")
    draws = model.running_w(np.array([0.0, 1.0, 1.0, 0.5]), np.array([0.7, 0.0, 1.0, 1.0]))
    np.testing.assert_allclose(draws, [60.0, 80.0, 558.0, 60.0 + 0.5 * (558.0 - 60.0)])


def test_each_server_of_a_gang_draws_its_intensity_and_the_gang_runs_at_their_mean():
    from acmesim.policies.power.base import job_factor

    np.testing.assert_array_equal(job_factor(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
                                             np.array([1, 2, 0, 3])), [1.0, 2.5, 0.0, 5.0])
    model = POWERS.create("acme")
    small = model.draw_factor(np.random.default_rng(4), np.ones(4000, dtype=np.int64))
    gangs = np.full(4000, 16, dtype=np.int64)
    per_server = model.draw_factor(np.random.default_rng(4), gangs)
    assert per_server.size == 16 * 4000
    # the same distribution per server; a 16-server gang's mean spreads 4x less than a server
    assert per_server.mean() == pytest.approx(small.mean(), rel=0.05)
    assert job_factor(per_server, gangs).std() == pytest.approx(small.std() / 4, rel=0.1)


def test_start_up_latency_is_waiting_energy_of_the_job_that_holds_the_gpus():
    # one 8-GPU job of 1000 s at utilization 0.5 (200 W computing), start-up exactly 50 s:
    # its GPUs are held from 0, wait (100 W) until 50, compute until 1050
    from acmesim.cluster.startup import StartupLatency

    spec = dataclasses.replace(cluster(2), startup=StartupLatency(50.0, 50.0, 0.0))
    trace = frame([job(0, 1000, 8, type="Pretrain")]).assign(gpu_util=0.5)
    result = simulate(trace, spec, "fifo", power=POWERS.create("linear", SIMPLE),
                      utilization_interval=500.0)
    j0 = by_id(result.jobs)["j0"]
    assert (j0["start_time"], j0["end_time"], j0["run_time"]) == (50.0, 1050.0, 1000.0)
    share = 40 / 8
    waiting_j = (100 + share) * 8 * 50 / 0.8
    running_j = (200 + share) * 8 * 1000 / 0.8
    idle_j = (100 + share) * 8 * 1050 / 0.8
    s = result.summary
    assert s["energy_waiting_kwh"] * KWH == pytest.approx(waiting_j)
    assert s["energy_running_kwh"] * KWH == pytest.approx(running_j)
    assert s["energy_idle_kwh"] * KWH == pytest.approx(idle_j)
    assert s["energy_lost_failures_kwh"] == 0.0
    assert j0["energy_kwh"] * KWH == pytest.approx(waiting_j + running_j)
    u = result.utilization.set_index("interval_start")
    assert u.loc[0.0, "power_waiting_kw"] * 1000 * 500 == pytest.approx(waiting_j)
    assert u.loc[0.0, "power_running_kw"] * 1000 * 500 == pytest.approx(
        (200 + share) * 8 * 450 / 0.8)


def test_start_up_latency_of_a_job_a_failure_stops_is_not_failure_recovery_energy(tmp_path):
    # the same job, start-up 50 s; a fault on its node at 250: what the failure costs is the
    # same as without start-up latency once the 50 s of start-up are taken out (no checkpoints:
    # the 200 s of work done are rolled back); the start-up itself is waiting energy
    from acmesim.cluster.startup import StartupLatency

    spec = dataclasses.replace(cluster(2), startup=StartupLatency(50.0, 50.0, 0.0))
    trace = frame([job(0, 1000, 8, type="Pretrain")]).assign(gpu_util=0.5)
    injector = FaultInjector(failure_trace(tmp_path, ["250,n0000,node_failure,1000"]),
                             CHECKPOINTS.create("none"),
                             RECOVERIES.create("automatic", {"manual_fraction": 0.0}))
    result = simulate(trace, spec, "fifo", extensions=[injector],
                      power=POWERS.create("linear", SIMPLE))
    j0 = by_id(result.jobs)["j0"]
    assert j0["failures"] == 1
    share = 40 / 8
    s = result.summary
    assert s["energy_lost_rollback_kwh"] * KWH == pytest.approx(8 * 200 * (200 + share) / 0.8)
    restart_gs = (j0["lost_gpu_time"] - 8 * 200)  # the engine's: start-up excluded
    assert s["energy_lost_recovery_kwh"] * KWH == pytest.approx(restart_gs * (100 + share) / 0.8)
    assert_jobs_drew_what_the_held_gpus_drew(result)


def _calls_by_function(run) -> dict[tuple[str, str], int]:
    """How often ``run()`` calls each Python function (by file and name), with sys.setprofile."""
    import collections
    import sys

    counts: collections.Counter = collections.Counter()

    def probe(frame_, event, arg):
        if event == "call":
            counts[(frame_.f_code.co_filename, frame_.f_code.co_name)] += 1

    sys.setprofile(probe)
    try:
        run()
    finally:
        sys.setprofile(None)
    return counts


def test_power_none_attaches_nothing_and_the_engine_takes_the_same_path_as_with_power():
    import os

    from acmesim.energy.extension import PowerExtension
    from acmesim.run.lifecycle import _extensions

    assert not any(isinstance(e, PowerExtension)
                   for e in _extensions(ReplayConfig(progress=False), {}, []))
    rows = [job(0, 500, 8), job(10, 300, 4), job(20, 100, 16, 2), job(30, 50, 8)]
    runs = {power: _calls_by_function(lambda p=power: simulate(frame(rows), cluster(2),
                                                                power=p))
            for power in ("none", "acme")}
    energy = os.path.join("acmesim", "energy") + os.sep
    power_code = os.path.join("acmesim", "policies", "power") + os.sep
    # power=none runs no accounting code: only the model object is built
    called = {name for (path, name), n in runs["none"].items()
              if energy in path or power_code in path}
    assert called <= {"__init__", "<module>"}
    assert any(energy in path for path, _ in runs["acme"])
    # and the event loop runs the very same functions the same number of times (but for the
    # power extension's own reads as it attaches and summarizes: which hooks it overrides, the
    # table's length and text columns, the clock)
    engine = os.path.join("acmesim", "sim") + os.sep
    table_texts = os.path.join("acmesim", "sim", "texts.py")
    # (arrivals included: the loads reach the engine as one list, not by an arrival hook that
    # would take every arrival off the engine's fast path)
    reads = {"overrides", "__len__", "now"}
    loop = {power: {k: n for k, n in counts.items()
                    if engine in k[0] and not k[0].endswith(table_texts) and k[1] not in reads}
            for power, counts in runs.items()}
    assert len(loop["none"]) > 30
    assert loop["none"] == loop["acme"]
