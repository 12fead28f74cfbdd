"""Recovery policies: day/night manual response, automatic detection and escalation, hot spares."""

from __future__ import annotations

import math

import numpy as np
import pytest

from acmesim.core.errors import ConfigError
from acmesim.policies.failure.events import FailureEvent
from acmesim.policies.failure.kinds import KindMix, llama3_kinds
from acmesim.policies.job_shape import JobShape
from acmesim.policies.recovery import RECOVERIES
from acmesim.policies.recovery.base import Draws, until_working_hours
from acmesim.studies.reliability.recovery_pool import recovery_pool

HOUR = 3600.0
JOB = {"job_id": "p", "type": "Pretrain", "gpu_num": 64}
GPU_FAULT = FailureEvent(0.0, "nvlink_error", "gpu", "node0007", 10.0, 4 * HOUR, 3)
HANG = FailureEvent(0.0, "nccl_timeout", "node", "node0002", 1800.0, 0.0)
SWITCH = FailureEvent(0.0, "switch_failure", "switch", "leaf003", 300.0, 2 * HOUR)
# epoch_unix = 0 is 08:00 in UTC+8, so now = h hours is local hour (8 + h) % 24.
LOCAL_NOON, LOCAL_2AM = 4 * HOUR, 18 * HOUR


def policy(name, **options):
    return RECOVERIES.create(name, options)


def test_registry_names_and_options():
    assert {"manual", "automatic", "hot_spare"} <= set(RECOVERIES.names())
    with pytest.raises(ConfigError, match="manual_fraction"):
        RECOVERIES.make_config("automatic", {"manual_fraction": 1.5})


def test_manual_daytime_wait_is_detection_response_and_diagnosis():
    plan = policy("manual").plan(GPU_FAULT, JOB, LOCAL_NOON, np.random.default_rng(3))
    draws = Draws.take(np.random.default_rng(3))
    expected = (10.0 + 30 * 60 * math.exp(draws.response)
                + 60 * 60 * math.exp(draws.diagnosis))
    assert plan.wait == pytest.approx(expected)
    assert plan.manual and plan.release_nodes and plan.needs_new_nodes
    assert plan.restart_overhead == 600.0
    assert plan.cordon_nodes == ("node0007",)


def test_manual_at_night_waits_for_the_morning():
    day = policy("manual", delay_sigma=0.0).plan(GPU_FAULT, JOB, LOCAL_NOON,
                                                   np.random.default_rng(0))
    night = policy("manual", delay_sigma=0.0).plan(GPU_FAULT, JOB, LOCAL_2AM,
                                                     np.random.default_rng(0))
    assert day.wait == pytest.approx(10 + 1800 + 3600)
    # Noticed at 02:00:10 local; nobody answers before 09:00.
    assert night.wait == pytest.approx(7 * HOUR + 1800 + 3600)


def test_epoch_shifts_the_clock():
    shifted = RECOVERIES.create("manual", {"delay_sigma": 0.0}, epoch_unix=14 * HOUR)
    plan = shifted.plan(GPU_FAULT, JOB, LOCAL_NOON, np.random.default_rng(0))
    assert plan.wait > 5 * HOUR  # 02:00 local: off hours


@pytest.mark.parametrize(("hour", "expected_h"), [(9.0, 0.0), (22.99, 0.0), (23.0, 10.0),
                                                  (2.0, 7.0), (8.5, 0.5)])
def test_until_working_hours(hour, expected_h):
    assert until_working_hours(hour, 9.0, 23.0) == pytest.approx(expected_h * HOUR)


def test_automatic_caps_hang_detection_and_runs_the_nccl_test():
    auto = policy("automatic", manual_fraction=0.0)
    plan = auto.plan(HANG, JOB, LOCAL_2AM, np.random.default_rng(0))
    assert plan.wait == pytest.approx(300 + 60 + 2 * 60)  # heartbeat, log diagnosis, 2 rounds
    assert not plan.manual and not plan.release_nodes
    assert not plan.needs_new_nodes and plan.cordon_nodes == ()  # transient: nothing to replace
    hardware = auto.plan(GPU_FAULT, JOB, 0.0, np.random.default_rng(0))
    assert hardware.wait == pytest.approx(10 + 60 + 120)
    assert hardware.needs_new_nodes and hardware.cordon_nodes == ("node0007",)
    switch = auto.plan(SWITCH, JOB, 0.0, np.random.default_rng(0))
    assert switch.cordon_switch == "leaf003" and switch.cordon_nodes == ()


def test_automatic_escalates_about_ten_percent_to_a_person():
    # acme_facts §4: about 90% less manual intervention.
    auto = policy("automatic")
    rng = np.random.default_rng(7)
    manual = [auto.plan(GPU_FAULT, JOB, LOCAL_NOON, rng).manual for _ in range(4000)]
    assert np.mean(manual) == pytest.approx(0.10, abs=0.015)
    always = policy("automatic", manual_fraction=1.0).plan(GPU_FAULT, JOB, LOCAL_NOON,
                                                           np.random.default_rng(0))
    assert always.manual and always.wait > 190


def test_hot_spare_swaps_in_spares_when_there_are_enough():
    spare = policy("hot_spare", manual_fraction=0.0)
    rng = np.random.default_rng(0)
    swapped = spare.plan(GPU_FAULT, JOB, 0.0, rng)
    assert not swapped.needs_new_nodes and swapped.spare_nodes == 1
    assert swapped.restart_overhead == pytest.approx(5 * 60 + 5 * 60)
    short = spare.plan(SWITCH, JOB, 0.0, rng, spares_free=2, nodes_lost=4)
    assert short.needs_new_nodes and short.spare_nodes == 0
    enough = spare.plan(SWITCH, JOB, 0.0, rng, spares_free=4, nodes_lost=4)
    assert enough.spare_nodes == 4
    assert spare.reserved_nodes(286) == 15  # ceil(5% of Seren's 286 nodes)
    assert policy("automatic").reserved_nodes(286) == 0


def test_recovery_pool_orders_the_policies_and_respects_capacity():
    mix = KindMix(llama3_kinds())
    job = JobShape("p", "Pretrain", 1024, 128)

    def mean_downtime(name, capacity):
        pool = recovery_pool(policy(name), mix, job, np.random.default_rng(1), 3000,
                             capacity=capacity, restore=100.0)
        assert pool.restart.min() >= 100.0
        return pool.downtime.mean()

    for capacity in ("idle", "repair"):
        assert mean_downtime("manual", capacity) > mean_downtime("automatic", capacity)
    assert mean_downtime("automatic", "repair") > 3 * mean_downtime("hot_spare", "repair")
    assert mean_downtime("automatic", "idle") < mean_downtime("automatic", "repair")
