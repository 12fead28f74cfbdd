"""The waiting parts worked out after the run equal, bit for bit, interval-by-interval accounting.

``Reference`` is the accounting the power extension did inside the event loop before it moved
after the run (``acmesim.energy.waiting``): it adds each closing interval's overhead and stalls
to per-job and per-utilization-interval lists as the engine closes it. The post-run numpy
version must give the very same floats (same terms, same order), so the energy figures of every
file stay what they were.
"""

from __future__ import annotations

import math

import numpy as np
from factories import cluster, frame, job
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acmesim.faults import FaultInjector
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure import FAILURES
from acmesim.policies.recovery import RECOVERIES
from acmesim.run import simulate
from acmesim.sim.extension import Extension


class Reference(Extension):
    """Interval-by-interval accounting of the waiting parts (the former in-loop code)."""

    def __init__(self, power, interval: float) -> None:
        self.power, self.interval = power, interval
        self.wait_gpu_s: list[float] = []
        self.wait_saving: list[float] = []

    def attach(self, sim) -> None:
        n = len(sim.table)
        self.restart_s, self.failure_restart_s = [0.0] * n, [0.0] * n
        self.startup_s, self.stall_s, self.seen = [0.0] * n, [0.0] * n, [0.0] * n

    def on_close(self, job, now: float) -> None:
        i = job.index
        gpus = int(self.power.gpu_num[i])
        if not gpus:
            return
        start = job.last_start
        held = now - start
        restart = job.overhead if job.overhead < held else held
        stalled = job.checkpoint_overhead - self.seen[i]
        if restart <= 0 and stalled <= 0:
            return
        saving = float(self.power.saving_w[i])
        if restart > 0:
            self.restart_s[i] += restart
            if job.stop_cause == "failure":
                self.failure_restart_s[i] += restart
            elif job.restarts == 0:
                startup = job.start_time - start
                self.startup_s[i] += startup if startup < restart else restart
            k = math.floor(start / self.interval)
            if start + restart <= (k + 1) * self.interval and k < len(self.wait_gpu_s):
                self.wait_gpu_s[k] += restart * gpus
                self.wait_saving[k] += restart * gpus * saving
            else:
                a, b = start, start + restart
                k = math.floor(a / self.interval)
                while a < b:
                    edge = min(b, (k + 1) * self.interval)
                    self._add(k, (edge - a) * gpus, saving)
                    a, k = edge, k + 1
        if stalled > 0:
            self.seen[i] = job.checkpoint_overhead
            self.stall_s[i] += stalled
            begin, before = start + restart, 0.0
            k = math.floor(begin / self.interval)
            while (k + 1) * self.interval < now:
                done = job.pace.advance(job.work_done, job.work,
                                        (k + 1) * self.interval - begin)[1]
                self._add(k, (done - before) * gpus, saving)
                before, k = done, k + 1
            self._add(k, (stalled - before) * gpus, saving)

    def _add(self, k: int, gpu_s: float, saving: float) -> None:
        if gpu_s <= 0:
            return
        grow = k + 1 - len(self.wait_gpu_s)
        if grow > 0:
            grow = max(grow, len(self.wait_gpu_s))
            self.wait_gpu_s.extend([0.0] * grow)
            self.wait_saving.extend([0.0] * grow)
        self.wait_gpu_s[k] += gpu_s
        self.wait_saving[k] += gpu_s * saving


def replay_both(rows, faults: float, interval: float, checkpoint_min: float, seed: int):
    """One replay with power=acme and the reference attached; both accountings."""
    from acmesim.energy.extension import PowerExtension
    from acmesim.policies.power import POWERS

    power = PowerExtension(POWERS.create("acme"), interval)
    reference = Reference(power, interval)
    injector = FaultInjector(FAILURES.create("exponential", {"node_mtbf_hours": faults}),
                             CHECKPOINTS.create("fixed", {"interval_min": checkpoint_min}),
                             RECOVERIES.create("automatic"))
    result = simulate(frame(rows), cluster(4), extensions=[power, injector, reference],
                      utilization_interval=interval, seed=seed, mode="scheduled")
    return result, power.waiting, reference


def assert_bitwise_equal(waiting, reference) -> None:
    for name in ("restart_s", "failure_restart_s", "startup_s", "stall_s"):
        np.testing.assert_array_equal(getattr(waiting, name), getattr(reference, name),
                                      err_msg=name)
    size = max(len(waiting.wait_gpu_s), 1)
    for name in ("wait_gpu_s", "wait_saving"):
        ours = np.zeros(size + len(reference.wait_gpu_s))
        ours[:len(getattr(waiting, name))] = getattr(waiting, name)
        theirs = np.zeros(len(ours))
        theirs[:len(getattr(reference, name))] = getattr(reference, name)
        assert ours.tobytes() == theirs.tobytes(), name


jobs_strategy = st.lists(st.tuples(st.integers(0, 4000), st.integers(1, 6000),
                                   st.sampled_from([(1, 1), (4, 1), (8, 1), (16, 2)])),
                         min_size=1, max_size=10)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jobs=jobs_strategy, faults=st.sampled_from([0.5, 2.0]),
       interval=st.sampled_from([7.0, 60.0, 333.0, 3600.0]),
       checkpoint_min=st.sampled_from([0.5, 5.0]), seed=st.integers(1, 5))
def test_post_run_waiting_parts_equal_the_interval_by_interval_accounting(
        jobs, faults, interval, checkpoint_min, seed):
    rows = [job(s, r, g, n, type="Pretrain") for s, r, (g, n) in jobs]
    result, waiting, reference = replay_both(rows, faults, interval, checkpoint_min, seed)
    assert_bitwise_equal(waiting, reference)


def test_a_replay_with_many_failures_stalls_and_edges_matches_bit_for_bit():
    rows = [job(60 * k, 900 + 37 * k, (8, 16, 4)[k % 3], 1 + (k % 3 == 1),
                type="Pretrain") for k in range(40)]
    result, waiting, reference = replay_both(rows, 2.0, 29.0, 0.7, 3)
    assert result.summary["failures"] > 5 and waiting.stall_s.sum() > 0
    assert (waiting.wait_gpu_s > 0).sum() > 50  # many utilization intervals hold waiting GPUs
    assert_bitwise_equal(waiting, reference)


@settings(max_examples=200, deadline=None)
@given(interval=st.floats(1.0, 500.0), stall=st.floats(0.0, 50.0), persist=st.floats(0.0, 900.0),
       done=st.floats(0.0, 5000.0), extra=st.floats(0.0, 20000.0),
       elapsed=st.lists(st.floats(0.0, 40000.0), min_size=1, max_size=30))
def test_stalls_at_many_elapsed_times_are_advance_s_bit_for_bit(interval, stall, persist, done,
                                                                extra, elapsed):
    from acmesim.faults.pacing import CheckpointPace

    later = stall + max(0.0, persist - interval)
    pace = CheckpointPace(interval, stall, later, persist)
    work = done + extra
    many = pace.stalled_at(done, work, np.asarray(elapsed))
    one_by_one = [pace.advance(done, work, e)[1] for e in elapsed]
    assert many.tobytes() == np.asarray(one_by_one, dtype=np.float64).tobytes()
