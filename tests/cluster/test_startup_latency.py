"""Start-up latency: GPUs held from the scheduler's start until the job runs (hand-worked)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from factories import by_id, cluster, frame, job

from acmesim.cluster import CLUSTERS
from acmesim.cluster.presets.acme import (
    lognormal_between,
    lognormal_through,
    published_startup,
    sigma_for_mean_ratio,
)
from acmesim.cluster.startup import GivenStartup, StartupLatency
from acmesim.core.errors import ConfigError
from acmesim.core.rng import RngStreams
from acmesim.run.simulate import simulate

FIXED_5S = StartupLatency(minimum=5.0, median=5.0, sigma=0.0)


def spec_with(startup, nodes=1):
    return dataclasses.replace(cluster(nodes), startup=startup)


def test_startup_holds_the_gpus_and_counts_as_queueing():
    # One 8-GPU node, two 8-GPU jobs of 10 s submitted at 0, start-up exactly 5 s:
    # A is started at 0, runs 5..15; B is started at 15 (A's end), runs 20..30.
    rows = [job(0, 10, 8), job(0, 10, 8)]
    result = simulate(frame(rows), spec_with(FIXED_5S), "fifo", audit=True)
    jobs = by_id(result.jobs)
    assert (jobs["j0"]["start_time"], jobs["j0"]["end_time"]) == (5.0, 15.0)
    assert (jobs["j1"]["start_time"], jobs["j1"]["end_time"]) == (20.0, 30.0)
    assert [jobs[j]["queue_delay"] for j in ("j0", "j1")] == [5.0, 20.0]
    assert [jobs[j]["run_time"] for j in ("j0", "j1")] == [10.0, 10.0]
    assert [jobs[j]["lost_gpu_time"] for j in ("j0", "j1")] == [0.0, 0.0]
    curve = result.curve
    busy = curve.busy_gpus[(curve.time >= 0) & (curve.time < 30)]
    assert (busy == 8).all()  # held through both start-ups: B cannot start during A's


def test_recorded_mode_ignores_startup():
    rows = [job(0, 10, 8, start=3), job(1, 10, 8, start=13)]
    result = simulate(frame(rows), spec_with(FIXED_5S), mode="recorded")
    jobs = by_id(result.jobs)
    assert [jobs[j]["start_time"] for j in ("j0", "j1")] == [3.0, 13.0]


def test_startup_is_drawn_per_job_from_its_own_stream():
    latency = StartupLatency(minimum=4.0, median=17.0, sigma=0.8, maximum=600.0)
    rows = [job(t, 100, 1) for t in range(0, 400, 2)]
    result = simulate(frame(rows), spec_with(latency, nodes=40), "fifo", seed=3)
    expected = latency.draw(RngStreams(3).stream("startup"), len(rows))
    delays = result.jobs.queue_delay.to_numpy()
    assert np.allclose(delays, expected)  # the cluster never fills: queueing is start-up only
    assert delays.min() >= 4.0 and delays.max() <= 600.0


def test_shifted_lognormal_median_minimum_and_cap():
    latency = StartupLatency(minimum=4.0, median=17.0, sigma=0.8, maximum=60.0)
    draws = latency.draw(np.random.default_rng(0), 100_000)
    assert np.median(draws) == pytest.approx(17.0, rel=0.02)
    assert draws.min() >= 4.0 and draws.max() == 60.0
    # P(X <= 4 + 13 e^{0.8 z}) = Phi(z): at z = 1, 4 + 13 e^0.8 = 32.93
    assert (draws <= 32.93).mean() == pytest.approx(0.8413, abs=0.005)
    assert not StartupLatency().active and (StartupLatency().draw(None, 3) == 0).all()


def test_kalos_startup_has_its_cpu_pods_mean_to_median_ratio():
    # Kalos CPU pods queue 88.401 s on average against a 9 s median (R-SUM): ratio 9.82233.
    # Minimum 4 s, median 17 s: 4 + 13 e^(s^2/2) = 9.82233 x 17 = 166.980 -> e^(s^2/2) =
    # 12.5369 -> s = sqrt(2 ln 12.5369) = sqrt(5.05736) = 2.24886; capped at 2^16 s.
    kalos = CLUSTERS.create("kalos").spec.startup
    assert (kalos.minimum, kalos.median, kalos.maximum) == (4.0, 17.0, 65536.0)
    assert kalos.sigma == pytest.approx(2.2489, abs=1e-4)
    assert sigma_for_mean_ratio(4.0, 17.0, 88.401 / 9.0) == pytest.approx(2.24886, abs=1e-5)
    # unshifted: e^(s^2/2) = e^0.5 exactly when s = 1; ratio 1 means no spread
    assert sigma_for_mean_ratio(0.0, 3.0, math.exp(0.5)) == pytest.approx(1.0)
    assert sigma_for_mean_ratio(4.0, 17.0, 1.0) == 0.0
    with pytest.raises(ValueError, match="ratio >= 1"):
        sigma_for_mean_ratio(4.0, 17.0, 0.5)


def test_presets_carry_their_startup_and_the_option_replaces_it():
    assert CLUSTERS.create("kalos").spec.startup.minimum == 4.0
    seren = CLUSTERS.create("seren").spec.startup
    # Debug's, through p95 5 s and p99 88 s: sigma = ln(88 / 5) / (z(0.99) - z(0.95)) =
    # 2.8679 / (2.3263 - 1.6449) = 4.208, median = 5 exp(-4.208 x 1.6449) = 0.0049 s, so
    # Phi(ln(1 / 0.0049) / 4.208) = 89.7 % within 1 s (through 84.8 % within 1 s and p99 88 s:
    # 3.448 and 0.0289 s)
    assert seren.median == pytest.approx(0.0049) and seren.sigma == pytest.approx(4.208)
    assert lognormal_between(95, 5.0, 99, 88.0) == {"median": 0.0049, "sigma": 4.208}
    assert lognormal_through(0.848, 88.0, 99) == {"median": 0.0289, "sigma": 3.448}
    rows = dict((row[0], row[1:]) for row in seren.by_type)
    # Eval through 47.6 % within 1 s raised by its 12 % of jobs waiting for GPUs (presets.acme
    # WAITING_SHARE_BY_TYPE): 47.6 / 88 = 54.09 % and p95 809 s: sigma = ln 809 / (z(0.95) -
    # z(0.54091)) = 6.6958 / (1.6449 - 0.1027) = 4.342, median = exp(-4.342 x 0.1027) =
    # 0.6402 s (through the plain 47.6 %: 1.2667 s, 3.927)
    assert rows["Eval"] == pytest.approx((0.0, 0.6402, 4.342, 300.0))
    assert published_startup("seren", waiting={})["Eval"] == {"median": 1.2667, "sigma": 3.927}
    # SFT through p75 4 s and p95 455 s: sigma = ln(455 / 4) / (z(0.95) - z(0.75)) = 4.7340 /
    # (1.6449 - 0.6745) = 4.879, median = 4 exp(-4.879 x 0.6745) = 0.1489 s (65.2 % <= 1 s;
    # through 60.5 % within 1 s and p95 455 s: 0.3066 s, 4.44)
    assert rows["SFT"] == pytest.approx((0.0, 0.1489, 4.879, 300.0))
    assert lognormal_through(0.605, 455.0) == {"median": 0.3066, "sigma": 4.44}
    # MLLM through 72.7 % within 1 s and p90 10 s, fitted to the 99 % of its jobs not held
    # (1 % held, presets.acme): 72.7 / 99 = 73.43 % within 1 s and 10 s at the level
    # 1 - 9 / 99 = 90.91 %: sigma = ln 10 / (z(0.90909) - z(0.73434)) = 2.3026 / (1.3352 -
    # 0.6260) = 3.247, median = exp(-3.247 x 0.6260) = 0.1310 s (through the plain p90,
    # 2.3026 / (1.2816 - 0.6038) = 3.397 and 0.1286 s); pretraining's own cap 1,200 s
    assert rows["MLLM"] == pytest.approx((0.0, 0.1310, 3.247, 300.0))
    assert lognormal_through(0.727, 10.0, 90) == {"median": 0.1286, "sigma": 3.397}
    assert rows["Pretrain"][3] == 1200.0 and rows["Debug"][3] == 300.0
    assert not CLUSTERS.create("seren", {"startup": {}}).spec.startup.active
    assert not CLUSTERS.create("tiny").spec.startup.active
    with pytest.raises(ConfigError, match="no field"):
        CLUSTERS.create("seren", {"startup": {"mean": 3}})
    with pytest.raises(ConfigError, match="minimum <= median"):
        StartupLatency(minimum=5.0, median=1.0)


def test_given_startups_are_used_in_submission_order():
    # Given start-ups 7 s and 3 s (submission order): the job submitted at 5 s (listed first)
    # gets 3 s, the one at 0 s gets 7 s; on a free node, queue = start-up, run time kept.
    given = GivenStartup(median=1.0, values=[7.0, 3.0])
    rows = [job(5, 10, 1), job(0, 10, 1)]
    jobs = by_id(simulate(frame(rows), spec_with(given), "fifo").jobs)
    assert [jobs[j]["queue_delay"] for j in ("j0", "j1")] == [3.0, 7.0]
    assert [jobs[j]["end_time"] for j in ("j0", "j1")] == [18.0, 17.0]
    with pytest.raises(ConfigError, match="2 values for 3 jobs"):
        given.draw(None, 3)


def test_jobs_started_together_queue_for_the_launcher():
    # Launch interval 2 s, no other start-up: three 1-GPU jobs started at t=0 run from 0, 2 and
    # 4 s; a fourth started at t=10 finds the launcher free again. run_time is untouched.
    latency = StartupLatency(launch_interval=2.0)
    rows = [job(0, 10, 1), job(0, 10, 1), job(0, 10, 1), job(10, 10, 1)]
    result = simulate(frame(rows), spec_with(latency), "fifo", audit=True)
    jobs = by_id(result.jobs)
    assert [jobs[f"j{i}"]["start_time"] for i in range(4)] == [0.0, 2.0, 4.0, 10.0]
    assert [jobs[f"j{i}"]["run_time"] for i in range(4)] == [10.0] * 4
    assert latency.active
    with pytest.raises(ConfigError, match="launch_interval"):
        StartupLatency(launch_interval=-1.0)


def test_a_type_with_its_own_startup_uses_it_and_the_others_keep_the_default():
    # Default start-up exactly 5 s; Eval has its own exactly 30 s; Debug none (0 s). Three
    # 1-GPU jobs at t=0 on a free node start at 30, 5 and 0 s; run_time is untouched.
    latency = StartupLatency.of({"minimum": 5, "median": 5, "by_type": {
        "Eval": {"minimum": 30, "median": 30}, "Debug": {}}})
    rows = [job(0, 10, 1, type="Eval"), job(0, 10, 1, type="SFT"), job(0, 10, 1, type="Debug")]
    jobs = by_id(simulate(frame(rows), spec_with(latency), "fifo").jobs)
    assert [jobs[j]["queue_delay"] for j in ("j0", "j1", "j2")] == [30.0, 5.0, 0.0]
    assert [jobs[j]["end_time"] for j in ("j0", "j1", "j2")] == [40.0, 15.0, 10.0]


def test_per_type_draws_share_the_job_s_normal_draw():
    # Same Z per job: a type's draw is its own lognormal at the job's default quantile.
    base = StartupLatency(median=2.0, sigma=1.0, maximum=1e9)
    typed = StartupLatency(median=2.0, sigma=1.0, maximum=1e9,
                           by_type={"Eval": {"median": 6.0, "sigma": 2.0}})
    types = ["Eval", "SFT"] * 500
    plain = base.draw(np.random.default_rng(7), 1000)
    mixed = typed.draw(np.random.default_rng(7), 1000, types)
    z = np.log(plain / 2.0)
    assert np.allclose(mixed[1::2], plain[1::2])
    assert np.allclose(mixed[0::2], 6.0 * np.exp(2.0 * z[0::2]))
    assert np.allclose(typed.draw(np.random.default_rng(7), 1000), plain)  # no types given


def test_a_type_with_its_own_maximum_is_capped_there_and_the_others_at_the_cluster_s():
    # median 1 s, sigma 3 for both types, Pretrain capped at 1,000 s, the rest at 300 s. With
    # the job's normal draw z the uncapped latency is e^{3 z}: z = 2 gives 403 s (SFT 300 s,
    # Pretrain 403 s), z = 2.5 gives 1,808 s (SFT 300, Pretrain 1,000).
    latency = StartupLatency.of({"median": 1, "sigma": 3, "maximum": 300, "by_type": {
        "Pretrain": {"median": 1, "sigma": 3, "maximum": 1000}, "SFT": {"median": 1,
                                                                        "sigma": 3}}})
    types = ["Pretrain", "SFT"] * 20_000
    draws = latency.draw(np.random.default_rng(3), len(types), types)
    z = np.random.default_rng(3).standard_normal(len(types))
    expected = np.minimum(np.exp(3 * z), np.where(np.array(types) == "Pretrain", 1000, 300))
    assert np.allclose(draws, expected)
    assert draws[0::2].max() == 1000.0 and draws[1::2].max() == 300.0
    assert StartupLatency.of({"maximum": 300, "by_type": {"SFT": {}}}).by_type == (
        ("SFT", 0.0, 0.0, 0.0, 300.0),)
    with pytest.raises(ConfigError, match=r"by_type\['SFT'\].*median <= maximum"):
        StartupLatency.of({"by_type": {"SFT": {"median": 5, "maximum": 2}}})


def test_bad_per_type_startup_is_rejected_with_its_type():
    with pytest.raises(ConfigError, match=r"by_type\['Eval'\].*minimum <= median"):
        StartupLatency.of({"by_type": {"Eval": {"minimum": 9, "median": 1}}})
    with pytest.raises(ConfigError, match=r"by_type\['Eval'\] must be a dict"):
        StartupLatency.of({"by_type": {"Eval": {"mean": 3}}})
    with pytest.raises(ConfigError, match="by_type must map"):
        StartupLatency.of({"by_type": [1, 2]})


def test_lognormal_through_its_share_within_1_s_and_p95():
    from statistics import NormalDist

    from acmesim.cluster.presets.acme import lognormal_through

    fit = lognormal_through(0.5, 100.0)  # half within 1 s: median 1 s, p95 100 s
    assert fit["median"] == pytest.approx(1.0)
    assert fit["sigma"] == pytest.approx(np.log(100.0) / NormalDist().inv_cdf(0.95), abs=1e-3)


def test_others_start_up_is_fitted_to_the_jobs_outside_its_published_wait_tail():
    # Seren's Other: 72.7 % queued <= 1 s, p95 68 s, 2.4 % waiting > 2^15 s (acme_facts.md
    # §2.5). With the tail's jobs counted as waits above 68 s, the start-up of the other
    # 97.6 % must give 0.976 F(1) = 0.727 and 0.976 (1 - F(68)) = 0.05 - 0.024 = 0.026.
    from statistics import NormalDist

    from acmesim.cluster.presets.acme import SEREN_STARTUP

    fit = SEREN_STARTUP["by_type"]["Other"]
    normal = NormalDist(np.log(fit["median"]), fit["sigma"])
    assert 0.976 * normal.cdf(0.0) == pytest.approx(0.727, abs=1e-3)
    assert 0.976 * (1.0 - normal.cdf(np.log(68.0))) == pytest.approx(0.026, abs=1e-4)


def test_lognormal_between_two_percentiles_passes_through_both():
    # p50 2 s and p84.13 (z = 1) 2e s: median 2 s, sigma 1
    from statistics import NormalDist

    fit = lognormal_between(50, 2.0, 100 * NormalDist().cdf(1.0), 2.0 * np.e)
    assert fit == {"median": 2.0, "sigma": 1.0}
    # and a symmetric pair around the median: p25 1 s, p75 16 s -> median 4 s
    assert lognormal_between(25, 1.0, 75, 16.0)["median"] == pytest.approx(4.0)
