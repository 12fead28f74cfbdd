"""The preemptive planner's count-only pass gives exactly the node-level plan it stands for."""

from __future__ import annotations

import random
from collections import Counter

import pandas as pd
import pytest
from factories import cluster, frame, job
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling._preempt import (
    UNUSABLE,
    PreemptiveScheduler,
    fit_nodes,
    take,
    take_by_count,
)
from acmesim.run import simulate

GPUS = 8


class Shape:
    """The fields of a job that fitting reads."""

    def __init__(self, nodes_needed: int, per_node: int) -> None:
        self.nodes_needed = nodes_needed
        self.per_node = per_node


def counts(free: list[int]) -> list[int]:
    """How many usable nodes have each free count 0..GPUS."""
    seen = Counter(free)
    return [seen[k] for k in range(GPUS + 1)]


shapes = st.one_of(st.builds(Shape, st.just(1), st.integers(1, GPUS)),
                   st.builds(Shape, st.integers(2, 4), st.sampled_from([4, GPUS])))


@settings(max_examples=100, deadline=None)
@given(free=st.lists(st.one_of(st.integers(0, GPUS), st.just(UNUSABLE)), min_size=1,
                     max_size=12),
       jobs=st.lists(shapes, max_size=10))
def test_take_by_count_fits_what_the_node_level_fit_fits(free, jobs):
    have = counts(free)
    for shape in jobs:
        nodes = fit_nodes(free, shape, GPUS)  # type: ignore[arg-type]
        assert take_by_count(have, shape, GPUS) == (nodes is not None)  # type: ignore[arg-type]
        if nodes is not None:
            take(free, nodes, shape)  # type: ignore[arg-type]
        assert have == counts(free)


def busy_trace(seed: int):
    """300 jobs of mixed shapes arriving faster than 4 nodes can serve them."""
    rng = random.Random(seed)
    rows = []
    for i in range(300):
        gpus, nodes = rng.choice([(1, 1), (2, 1), (4, 1), (8, 1), (16, 2), (3, 1)])
        rows.append(job(i * 30.0 + rng.random(), rng.choice([20, 200, 2000, 20000]), gpus,
                        nodes, type=rng.choice(["SFT", "Eval", "Pretrain", "Debug"]),
                        user=f"u{rng.randrange(5)}"))
    return frame(rows)


@pytest.mark.parametrize("name", ["srtf", "las", "acme_reservation"])
def test_plan_equals_the_node_level_plan_at_every_pass(name, monkeypatch):
    calls = {"plans": 0, "with_victims": 0, "by_counts": 0}
    original = PreemptiveScheduler.plan

    def checked(self, view, *worst):
        got = original(self, view, *worst)
        want = self.plan_on_nodes(view)
        assert [j.index for j in got[0]] == [j.index for j in want[0]]
        assert [j.index for j in got[1]] == [j.index for j in want[1]]
        calls["plans"] += 1
        calls["with_victims"] += bool(want[0])
        calls["by_counts"] += self.plan_by_counts(view) is not None
        return got

    monkeypatch.setattr(PreemptiveScheduler, "plan", checked)
    options = {"quotas": {"Pretrain": 0.5}} if name == "acme_reservation" else None
    scheduler = SCHEDULERS.create(name, options)
    result = simulate(busy_trace(7), cluster(4), scheduler, audit=True)
    assert result.summary["jobs_completed"] == 300
    # passes that preempted were compared, and (except under acme_reservation, whose
    # pending reserved jobs nearly always look for victims) passes planned on the counts alone
    assert calls["with_victims"] > 0, calls
    assert calls["by_counts"] > 0 or name == "acme_reservation", calls


@pytest.mark.parametrize("name", ["srtf", "las", "acme_reservation"])
def test_has_victims_says_whether_victims_lists_any(name, monkeypatch):
    seen = Counter()
    original = PreemptiveScheduler.schedule

    def checked(self, view):
        self.before_pass(view)
        for pending in self.queue.in_order(self.preempt_depth):
            rank = self.rank(pending, view)
            listed = bool(self.victims(view, rank))
            assert self.has_victims(view, rank) == listed
            seen[listed] += 1
        return original(self, view)

    monkeypatch.setattr(PreemptiveScheduler, "schedule", checked)
    options = {"quotas": {"Pretrain": 0.5}} if name == "acme_reservation" else None
    simulate(busy_trace(3), cluster(4), SCHEDULERS.create(name, options))
    assert seen[True] > 0 and seen[False] > 0, seen


def sparse_then_busy_trace(seed: int):
    """200 jobs: the first half sparse enough that most arrive to an empty queue, the second
    half as busy as ``busy_trace`` (so the lone-job shortcut and preemptions both occur)."""
    rng = random.Random(seed)
    rows = []
    for i in range(200):
        gap = 400.0 if i < 100 else 30.0
        gpus, nodes = rng.choice([(1, 1), (2, 1), (4, 1), (8, 1), (16, 2), (3, 1)])
        rows.append(job((i if i < 100 else 100 + (i - 100) / 13) * gap + rng.random(),
                        rng.choice([20, 200, 2000, 20000]), gpus, nodes,
                        type=rng.choice(["SFT", "Eval", "Pretrain", "Debug"]),
                        user=f"u{rng.randrange(5)}"))
    return frame(rows)


@pytest.mark.parametrize("name", ["srtf", "las"])
@pytest.mark.parametrize("seed", [1, 3])
def test_lone_job_shortcut_decides_as_the_plan(name, seed, monkeypatch):
    """A pass whose only pending job fits skips the plan: the run is the same as one that
    plans in every such pass (tables and preemptions). (acme_reservation's plans are rarer
    than its lone jobs: these traces never take the shortcut under it.)"""
    options = None
    taken = Counter()
    original = PreemptiveScheduler._sole_fitting

    def counted(self, view):
        sole = original(self, view)
        taken[sole is not None] += 1
        return sole

    monkeypatch.setattr(PreemptiveScheduler, "_sole_fitting", counted)
    trace = sparse_then_busy_trace(seed)
    shortcut = simulate(trace, cluster(4), SCHEDULERS.create(name, options))
    monkeypatch.setattr(PreemptiveScheduler, "_sole_fitting", lambda self, view: None)
    planned = simulate(trace, cluster(4), SCHEDULERS.create(name, options))
    pd.testing.assert_frame_equal(shortcut.jobs, planned.jobs)
    pd.testing.assert_frame_equal(shortcut.curve, planned.curve)
    assert shortcut.summary["preemptions"] == planned.summary["preemptions"] > 0
    assert taken[True] > 0, taken
