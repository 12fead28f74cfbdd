"""The windowing rule of the failure-model contract (``FaultWindows``), by hand-computed cases."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from acmesim.policies.failure.events import ClusterInfo, FailureEvent
from acmesim.policies.failure.windows import DAY, RUNAWAY_FACTOR, FaultWindows, RunawayFaults

CLUSTER = ClusterInfo.uniform(2)


@dataclasses.dataclass
class Listed:
    """Faults at fixed times; records every window it was asked for."""

    times: tuple[float, ...]
    asked: list[tuple[float, float]] = dataclasses.field(default_factory=list)

    def window_events(self, cluster, start, end, rng):
        self.asked.append((start, end))
        return iter([FailureEvent(t, "ecc_error", "node", cluster.nodes[0], 0.0, 1.0)
                     for t in self.times if start <= t < end])


def opened(windows: FaultWindows, count: int) -> list[list[float]]:
    streams: list[str] = []

    def rng_of(name: str) -> np.random.Generator:
        streams.append(name)
        return np.random.default_rng(0)

    faults = [[f.time for f in windows.open(rng_of)] for _ in range(count)]
    assert streams == ["failures.hardware"] + [f"failures.hardware.{k}" for k in range(1, count)]
    return faults


def test_windows_follow_each_other_and_double_after_an_empty_one():
    model = Listed((5.0, 250.0))
    windows = FaultWindows.for_run(model, CLUSTER, span=3 * DAY, window=100.0)
    assert opened(windows, 4) == [[5.0], [], [250.0], []]
    assert model.asked == [(0.0, 100.0), (100.0, 200.0), (200.0, 400.0), (400.0, 600.0)]
    assert windows.windows == model.asked and windows.end == 600.0
    assert windows.length == 400.0  # doubled after the empty fourth window


def test_the_first_window_is_the_span_at_least_a_day_and_the_runaway_limit_100_spans():
    short = FaultWindows.for_run(Listed(()), CLUSTER, span=3600.0)
    assert (short.length, short.runaway_at) == (DAY, RUNAWAY_FACTOR * DAY)
    long = FaultWindows.for_run(Listed(()), CLUSTER, span=3 * DAY)
    assert (long.length, long.runaway_at) == (3 * DAY, RUNAWAY_FACTOR * 3 * DAY)


def test_later_windows_come_only_while_jobs_are_unfinished_and_other_events_pending():
    windows = FaultWindows.for_run(Listed(()), CLUSTER, span=DAY)
    assert windows.may_open(other_events_pending=False)  # the first window always
    opened(windows, 1)
    assert not windows.may_open(other_events_pending=False)
    assert windows.may_open(other_events_pending=True)
    assert windows.next_due(jobs_unfinished=True) == DAY
    assert windows.next_due(jobs_unfinished=False) is None


def test_no_window_starts_at_the_runaway_limit():
    windows = FaultWindows(Listed(()), CLUSTER, length=40.0, runaway_at=100.0)
    opened(windows, 2)  # [0, 40), then (doubled) [40, 120): both start below the limit
    with pytest.raises(RunawayFaults) as stopped:
        windows.open(lambda name: np.random.default_rng(0))
    assert stopped.value.start == 120.0
    assert windows.windows == [(0.0, 40.0), (40.0, 120.0)]  # the refused one is not drawn
