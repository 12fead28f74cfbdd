"""The processor-sharing NIC model: hand-computed cases and an independent reference."""

from __future__ import annotations

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.studies.evaluation.link import SharedLink

GB = 1e9


def finish_times(transfers: list[tuple[float, float]], bytes_per_s: float = GB) -> list[float]:
    """Run (start time, bytes) transfers on one SharedLink; return their finish times."""
    env = simpy.Environment()
    link = SharedLink(env, bytes_per_s)
    ends = [float("nan")] * len(transfers)

    def one(i: int, start: float, nbytes: float):
        yield env.timeout(start)
        yield link.transfer(nbytes)
        ends[i] = env.now

    for i, (start, nbytes) in enumerate(transfers):
        env.process(one(i, start, nbytes))
    env.run()
    return ends


def reference_finish_times(transfers: list[tuple[float, float]], rate: float = GB) -> list[float]:
    """Independent fluid simulation: step from event to event, integrating remaining bytes."""
    pending = sorted(range(len(transfers)), key=lambda i: transfers[i][0])
    remaining: dict[int, float] = {}
    ends = [0.0] * len(transfers)
    now = 0.0
    while pending or remaining:
        next_arrival = transfers[pending[0]][0] if pending else float("inf")
        if remaining:
            share = rate / len(remaining)
            first = min(remaining.values())
            next_finish = now + first / share
        else:
            next_finish = float("inf")
        step_to = min(next_arrival, next_finish)
        finishing = [i for i, left in remaining.items() if left <= first * (1 + 1e-12)]
        for i in remaining:
            remaining[i] -= (step_to - now) * share
        now = step_to
        if next_finish <= next_arrival:
            for i in finishing:
                ends[i] = now
                del remaining[i]
        while pending and transfers[pending[0]][0] <= now:
            i = pending.pop(0)
            if transfers[i][1] > 0:
                remaining[i] = transfers[i][1]
            else:
                ends[i] = now
    return ends


def test_single_transfer_runs_at_full_bandwidth():
    assert finish_times([(0.0, 2 * GB)]) == [2.0]


def test_two_equal_transfers_started_together_share_and_end_together():
    # 2 GB each at 0.5 GB/s each: both end at 4 s.
    assert finish_times([(0.0, 2 * GB), (0.0, 2 * GB)]) == [4.0, 4.0]


def test_staggered_start_recomputes_the_share():
    # A alone on [0,1): 1 GB done, 1 GB left. From 1 s A and B get 0.5 GB/s: A ends at 3 s.
    # B has 1 GB by 3 s, 1 GB left alone at 1 GB/s: ends at 4 s.
    assert finish_times([(0.0, 2 * GB), (1.0, 2 * GB)]) == pytest.approx([3.0, 4.0], rel=1e-12)


def test_three_transfers_with_a_late_arrival():
    # [0, .5): A(3 GB), B(1 GB) at .5 GB/s -> A 2.75 left, B .75 left.
    # [.5, 2.75): A, B, C(1 GB) at 1/3 GB/s: B's .75 GB takes 2.25 s -> B ends 2.75;
    #   A then has 2 GB left, C .25 GB left.
    # [2.75, 3.25): A, C at .5 GB/s -> C ends 3.25; A has 1.75 GB left.
    # [3.25, 5): A alone -> ends at 5.0 (= 5 GB / 1 GB/s: the link never idled).
    ends = finish_times([(0.0, 3 * GB), (0.0, 1 * GB), (0.5, 1 * GB)])
    assert ends == pytest.approx([5.0, 2.75, 3.25], rel=1e-12)


def test_zero_byte_transfer_is_immediate_and_does_not_take_a_share():
    ends = finish_times([(0.0, 2 * GB), (1.0, 0.0)])
    assert ends == [2.0, 1.0]


def test_link_is_reusable_after_idling():
    assert finish_times([(0.0, 1 * GB), (5.0, 1 * GB)]) == pytest.approx([1.0, 6.0])


def test_rejects_bad_sizes_and_bandwidth():
    env = simpy.Environment()
    with pytest.raises(ValueError, match="bandwidth"):
        SharedLink(env, 0.0)
    with pytest.raises(ValueError, match="transfer size"):
        SharedLink(env, GB).transfer(-1.0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=40).map(lambda q: q / 4),
            st.integers(min_value=0, max_value=40).map(lambda q: q * GB / 8),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_matches_an_independent_fluid_simulation(transfers):
    got = finish_times(transfers)
    assert got == pytest.approx(reference_finish_times(transfers), rel=1e-9, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=64).map(lambda q: q * GB / 16), min_size=1,
                max_size=10))
def test_work_conservation_when_all_start_together(sizes):
    # Started together, the link is never idle: the last ends at total bytes / bandwidth, and
    # transfers end in size order.
    ends = finish_times([(0.0, s) for s in sizes])
    assert max(ends) == pytest.approx(sum(sizes) / GB, rel=1e-12)
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    assert [ends[i] for i in order] == sorted(ends)
