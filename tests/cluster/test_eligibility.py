"""Eligibility delay: jobs held by their users enter the queue late (hand-worked)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from factories import OnAttach, by_id, cluster, frame, job

from acmesim.cluster import CLUSTERS
from acmesim.cluster.eligibility import EligibilityDelay, GivenHolds
from acmesim.cluster.startup import StartupLatency
from acmesim.core.errors import ConfigError
from acmesim.core.rng import RngStreams
from acmesim.run.simulate import simulate
from acmesim.sim.replay_jobs import ArrivalProbe

OTHER_100S = EligibilityDelay.of({"by_type": {"Other": {"share": 1, "minimum": 100,
                                                        "maximum": 100}}})
"""Every Other job held exactly 100 s, no other type held."""


def spec_with(eligibility, nodes=1, **fields):
    return dataclasses.replace(cluster(nodes), eligibility=eligibility, **fields)


def test_a_held_job_enters_the_queue_at_submit_plus_hold_and_holds_no_gpus():
    # One 8-GPU node, fifo. A (Other, 8 GPUs, 50 s) is submitted at 0 and held 100 s. B (SFT,
    # submitted at 10, 30 s) finds the node free: A holds no GPUs while held, B runs 10..40.
    # C (SFT, at 90, 30 s) runs 90..120. A enters the queue at 100, waits for C and runs
    # 120..170: queue 120 s counted from its submission. D (SFT, at 105, 10 s) queued after A
    # (A's place in the queue is its eligibility, 100 s) runs 170..180.
    rows = [job(0, 50, 8, type="Other"), job(10, 30, 8, type="SFT"),
            job(90, 30, 8, type="SFT"), job(105, 10, 8, type="SFT")]
    seen = []
    probe = OnAttach(lambda sim: seen.append(sim))
    arrivals: list[tuple[str, float]] = []
    watch = ArrivalProbe(lambda j: arrivals.append((j.job_id, seen[0].now)))
    result = simulate(frame(rows), spec_with(OTHER_100S), "fifo", audit=True,
                      extensions=[probe, watch])
    jobs = by_id(result.jobs)
    assert [(jobs[j]["start_time"], jobs[j]["end_time"]) for j in ("j0", "j1", "j2", "j3")] == [
        (120.0, 170.0), (10.0, 40.0), (90.0, 120.0), (170.0, 180.0)]
    assert [jobs[j]["queue_delay"] for j in ("j0", "j1", "j2", "j3")] == [120.0, 0.0, 0.0, 65.0]
    assert jobs["j0"]["submit_time"] == 0.0 and jobs["j0"]["run_time"] == 50.0
    curve = result.curve
    idle = curve.busy_gpus[(curve.time >= 40) & (curve.time < 90)]
    assert len(idle) and (idle == 0).all()  # nothing runs while A is held
    # extensions see a held job at its submission, the scheduler's queue only after its hold
    assert arrivals[0] == ("j0", 0.0)


def test_a_hold_and_a_start_up_add_up():
    # A held 100 s with a start-up of exactly 5 s on a free node: it runs from 105 s.
    rows = [job(0, 50, 8, type="Other")]
    spec = spec_with(OTHER_100S, startup=StartupLatency(minimum=5.0, median=5.0))
    jobs = by_id(simulate(frame(rows), spec, "fifo").jobs)
    assert (jobs["j0"]["start_time"], jobs["j0"]["queue_delay"]) == (105.0, 105.0)


def test_recorded_mode_ignores_the_hold():
    rows = [job(0, 50, 8, type="Other", start=5), job(10, 30, 8, type="SFT", start=60)]
    jobs = by_id(simulate(frame(rows), spec_with(OTHER_100S), mode="recorded").jobs)
    assert [jobs[j]["start_time"] for j in ("j0", "j1")] == [5.0, 60.0]


def test_cpu_jobs_are_never_held():
    delay = EligibilityDelay(share=1.0, minimum=100.0, maximum=100.0)
    rows = [job(0, 50, 0, type="Other", cpus=4), job(0, 50, 1, type="Other")]
    spec = spec_with(delay, cpu_nodes=1)
    jobs = by_id(simulate(frame(rows), spec, "fifo", cpu_jobs="replay").jobs)
    assert [jobs[j]["queue_delay"] for j in ("j0", "j1")] == [0.0, 100.0]


@pytest.mark.parametrize("scheduler", ["fifo", "sjf", "las"])
def test_holds_are_drawn_per_job_from_their_own_stream_whatever_the_scheduler(scheduler):
    # 200 one-GPU jobs on 40 free nodes, 30 % of them held 50-500 s: each job's queue is its
    # own draw of the "eligibility" stream of the run's seed, by job index, under any policy.
    delay = EligibilityDelay(share=0.3, minimum=50.0, maximum=500.0)
    rows = [job(t, 100, 1, type="Eval" if t % 4 else "SFT") for t in range(0, 400, 2)]
    types = [row["type"] for row in rows]
    result = simulate(frame(rows), spec_with(delay, nodes=40), scheduler, seed=3)
    expected = delay.draw(RngStreams(3).stream("eligibility"), len(rows), types)
    queue = by_id(result.jobs)
    delays = np.array([queue[f"j{i}"]["queue_delay"] for i in range(len(rows))])
    assert np.allclose(delays, expected, rtol=1e-12, atol=1e-9)  # (submit + hold) - submit
    assert 0.2 < (delays > 0).mean() < 0.4 and delays[delays > 0].min() >= 50.0
    other = simulate(frame(rows), spec_with(delay, nodes=40), scheduler, seed=4)
    assert not np.array_equal(np.sort(other.jobs.queue_delay.to_numpy()), np.sort(delays))


def test_log_uniform_holds_and_the_share_held():
    delay = EligibilityDelay(share=0.25, minimum=100.0, maximum=400.0)
    # U = 0.1 < 0.25 held, V = 0.5: 100 x 4^0.5 = 200 s; U = 0.5 not held; V = 0 the minimum
    assert delay.at(np.array([0.1, 0.5, 0.2]), np.array([0.5, 0.5, 0.0])).tolist() == [
        200.0, 0.0, 100.0]
    draws = EligibilityDelay(share=0.25, minimum=2.0**15, maximum=2.0**17).draw(
        np.random.default_rng(0), 200_000)
    held = draws[draws > 0]
    assert len(held) / len(draws) == pytest.approx(0.25, abs=0.005)
    assert held.min() >= 2.0**15 and held.max() < 2.0**17
    assert (held < 2.0**16).mean() == pytest.approx(0.5, abs=0.01)  # uniform in log2
    assert not EligibilityDelay().active and (EligibilityDelay().draw(None, 3) == 0).all()


def test_a_type_with_its_own_row_uses_it_and_the_others_the_cluster_s():
    # Cluster: nobody held, range 10-10 s. Other: always held, its own range 30-30 s; SFT:
    # always held with the cluster's range (no minimum or maximum of its own).
    delay = EligibilityDelay.of({"minimum": 10, "maximum": 10, "by_type": {
        "Other": {"share": 1, "minimum": 30, "maximum": 30}, "SFT": {"share": 1}}})
    assert delay.by_type == (("Other", 1.0, 30.0, 30.0), ("SFT", 1.0, 10.0, 10.0))
    u = np.full(3, 0.5)
    assert delay.at(u, u, ["Other", "SFT", "Eval"]).tolist() == [30.0, 10.0, 0.0]
    assert delay.at(u, u).tolist() == [0.0, 0.0, 0.0]  # no types given: the cluster's share


def test_holds_within_room_go_only_to_jobs_with_room_and_keep_the_type_s_share():
    # Other: share 0.5, a fixed 100-s hold; SFT: never held. Other rooms 50, 100, 200, 300 s:
    # three of the four have room, so Other's share among them is 0.5 x 4 / 3 = 2/3. U = 0.1
    # (no room), 0.2, 0.3 (< 2/3, held), 0.9 (not held); the SFT job is not held.
    delay = EligibilityDelay.of({"by_type": {"Other": {"share": 0.5, "minimum": 100,
                                                       "maximum": 100}}})
    u = np.array([0.1, 0.2, 0.3, 0.9, 0.0])
    room = np.array([50.0, 100.0, 200.0, 300.0, 1e9])
    types = ["Other"] * 4 + ["SFT"]
    assert delay.within(u, u, room, types).tolist() == [0.0, 100.0, 100.0, 0.0, 0.0]
    assert delay.at(u, u, types).tolist() == [100.0, 100.0, 100.0, 0.0, 0.0]  # room ignored
    # one Other job of four with room: the share would be 0.5 x 4 = 2, capped at 1 (held)
    assert delay.within(np.full(4, 0.99), np.zeros(4), np.array([0, 0, 0, 100.0]),
                        ["Other"] * 4).tolist() == [0.0, 0.0, 0.0, 100.0]
    # no job with room: nobody held
    assert (delay.within(np.zeros(3), np.zeros(3), np.full(3, 99.0), ["Other"] * 3) == 0).all()


def test_holds_within_room_keep_the_share_and_fit_every_room():
    delay = EligibilityDelay(share=0.02, minimum=2.0**15, maximum=2.0**17)
    room = np.where(np.arange(100_000) % 2 == 0, 10.0, 2.0**17)
    holds = delay.draw_within(np.random.default_rng(1), room)
    assert (holds <= room).all() and (holds[room < 2.0**15] == 0).all()
    assert (holds > 0).mean() == pytest.approx(0.02, abs=0.002)  # raised to 0.04 among half
    assert not EligibilityDelay().active and (EligibilityDelay().draw_within(
        None, np.ones(3)) == 0).all()


def test_given_holds_replace_the_draws_in_the_engine_s_job_order():
    # j1 (submitted first) held 30 s, j0 not: j1 queues 30 s on a free node
    rows = [job(5, 10, 1, type="SFT"), job(0, 10, 1, type="SFT")]
    given = GivenHolds(share=1.0, minimum=1.0, maximum=1.0, values=np.array([30.0, 0.0]))
    jobs = by_id(simulate(frame(rows), spec_with(given), "fifo").jobs)
    assert (jobs["j0"]["queue_delay"], jobs["j1"]["queue_delay"]) == (0.0, 30.0)
    wrong = GivenHolds(share=1.0, values=np.zeros(3))
    with pytest.raises(ConfigError, match="given holds hold 3 values for 2 jobs"):
        simulate(frame(rows), spec_with(wrong), "fifo")


def test_bad_eligibility_is_rejected():
    with pytest.raises(ConfigError, match=r"share must be in \[0, 1\]"):
        EligibilityDelay(share=1.5)
    with pytest.raises(ConfigError, match="0 < minimum <= maximum"):
        EligibilityDelay(share=0.1, minimum=0.0, maximum=10.0)
    with pytest.raises(ConfigError, match="0 < minimum <= maximum"):
        EligibilityDelay(share=0.1, minimum=20.0, maximum=10.0)
    with pytest.raises(ConfigError, match="< inf"):
        EligibilityDelay(share=0.1, minimum=20.0, maximum=float("inf"))
    with pytest.raises(ConfigError, match="no field"):
        EligibilityDelay.of({"mean": 3})
    with pytest.raises(ConfigError, match="must be a dict"):
        EligibilityDelay.of(0.02)
    with pytest.raises(ConfigError, match="eligibility: could not convert"):
        EligibilityDelay.of({"share": "often"})
    with pytest.raises(ConfigError, match=r"by_type\['Other'\] must be a dict"):
        EligibilityDelay.of({"by_type": {"Other": {"p": 0.1}}})
    with pytest.raises(ConfigError, match=r"by_type\['Other'\] share must be"):
        EligibilityDelay.of({"by_type": {"Other": {"share": -0.1}}})
    with pytest.raises(ConfigError, match=r"by_type\['Other'\] needs numbers"):
        EligibilityDelay.of({"by_type": {"Other": {"share": "x"}}})
    with pytest.raises(ConfigError, match="by_type must map"):
        EligibilityDelay.of({"by_type": [1, 2]})
    with pytest.raises(ConfigError, match="eligibility has no field"):
        CLUSTERS.create("seren", {"eligibility": {"mean": 3}})
    assert not CLUSTERS.create("seren", {"eligibility": {}}).spec.eligibility.active
    assert not CLUSTERS.create("tiny").spec.eligibility.active


def test_the_presets_hold_other_and_mllm_by_default():
    # Seren's Other: 2.4 % wait longer than 2^15 s (acme_facts.md §2.5); the hold starts at
    # 2^15 s, its share (1.5 %) and upper end (2^17 s) are chosen (presets.acme). Seren's MLLM:
    # p99 12,103 s (§2.5); 1 % held for 2^13 to 2^15 s, all chosen. Log-uniform over two powers
    # of two: half of the holds are shorter than the middle power (2^16 s, 2^14 s), a quarter
    # shorter than the quarter point (2^15.5 s, 2^13.5 s). Seren and Kalos hold by default
    # (``HOLDS``); ``{}`` turns it off.
    from acmesim.cluster.presets.acme import HOLDS

    assert HOLDS == {"by_type": {"Other": {"share": 0.015, "minimum": 2.0 ** 15,
                                           "maximum": 2.0 ** 17},
                                 "MLLM": {"share": 0.01, "minimum": 2.0 ** 13,
                                          "maximum": 2.0 ** 15}}}
    for name in ("seren", "kalos"):
        delay = CLUSTERS.create(name).spec.eligibility
        assert delay.active
        assert delay.by_type == (("MLLM", 0.01, 8192.0, 32768.0),
                                 ("Other", 0.015, 32768.0, 131072.0)) and delay.share == 0.0
        assert not CLUSTERS.create(name, {"eligibility": {}}).spec.eligibility.active
    types = ["Other", "Eval", "MLLM"] * 100_000
    draws = CLUSTERS.create("seren").spec.eligibility.draw(np.random.default_rng(1),
                                                            len(types), types)
    assert (draws[1::3] == 0).all()
    for drawn, share, low in ((draws[0::3], 0.015, 15), (draws[2::3], 0.01, 13)):
        assert (drawn > 0).mean() == pytest.approx(share, abs=0.001)
        held = drawn[drawn > 0]
        assert held.min() >= 2.0 ** low and held.max() < 2.0 ** (low + 2)
        assert np.median(held) == pytest.approx(2.0 ** (low + 1), rel=0.05)
        assert (held < 2.0 ** (low + 0.5)).mean() == pytest.approx(0.25, abs=0.04)
    # A preset's default is a fresh copy: changing one spec's dict does not change HOLDS.
    CLUSTERS.create("seren").config.eligibility["by_type"]["Other"]["share"] = 0.5
    rows = {row[0]: row for row in CLUSTERS.create("seren").spec.eligibility.by_type}
    assert rows["Other"][1] == 0.015


def test_a_requeued_job_is_not_held_again():
    # A (Other, 8 GPUs, 50 s) held 100 s runs from 100 s; preempted at 120 s (20 s done, no
    # rollback, no restart overhead) it goes straight back to the queue and restarts at once:
    # it ends at 150 s. Held again it would restart at 220 s and end at 250 s.
    from acmesim.sim.preemption import PreemptionModel

    def preempt_at_120(sim):
        sim.call_at(120.0, lambda: sim.preempt(sim.job(0)))

    rows = [job(0, 50, 8, type="Other")]
    result = simulate(frame(rows), spec_with(OTHER_100S), "fifo", audit=True,
                      extensions=[OnAttach(preempt_at_120)],
                      preemption=PreemptionModel(restart_overhead_small=0.0,
                                                 restart_overhead_large=0.0))
    jobs = by_id(result.jobs)
    assert (jobs["j0"]["end_time"], jobs["j0"]["preemptions"]) == (150.0, 1)
