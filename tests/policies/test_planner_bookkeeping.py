"""The planner's and SRTF's/LAS's faster bookkeeping decide as the plain versions they replace.

Each structure is checked against a straightforward oracle written here: the node-level fit
read off kept counts against a scan of every node, the one-walk victim search against its two
walks (single-node victims first, then every victim), SRTF's parallel end lists against sorting
its ends, and LAS without the demotions it no longer arms against LAS arming every one.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pandas as pd
from factories import cluster, frame, job
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling._preempt import (
    UNUSABLE,
    fit_nodes,
    release,
    take,
    victims_on_one_node,
)
from acmesim.policies.scheduling.las import LeastAttainedService
from acmesim.policies.scheduling.srtf import ShortestRemainingTimeFirst
from acmesim.run import simulate

GPUS = 8


class Shape:
    """The fields of a job that fitting reads."""

    def __init__(self, nodes_needed: int, per_node: int) -> None:
        self.nodes_needed = nodes_needed
        self.per_node = per_node


class Victim:
    """The fields of a running job that the victim search reads."""

    def __init__(self, index: int, grants: list[tuple[int, int]]) -> None:
        self.index = index
        self.grants = grants
        self.nodes_needed = len(grants)
        self.gpu_num = sum(mask.bit_count() for _, mask in grants)


def counts(free: list[int]) -> list[int]:
    """How many usable nodes have each free count 0..GPUS."""
    seen = Counter(free)
    return [seen[k] for k in range(GPUS + 1)]


def fit_by_scan(free: list[int], job: Shape) -> list[int] | None:
    """Best fit (lowest node of the smallest count that fits) or the lowest whole nodes."""
    if job.nodes_needed == 1:
        fitting = [(count, node) for node, count in enumerate(free) if count >= job.per_node]
        return [min(fitting)[1]] if fitting else None
    whole = [node for node, count in enumerate(free) if count == GPUS]
    return whole[:job.nodes_needed] if len(whole) >= job.nodes_needed else None


shapes = st.one_of(st.builds(Shape, st.just(1), st.integers(1, GPUS)),
                   st.builds(Shape, st.integers(2, 4), st.sampled_from([4, GPUS])))


@settings(max_examples=150, deadline=None)
@given(free=st.lists(st.one_of(st.integers(0, GPUS), st.just(UNUSABLE)), min_size=1,
                     max_size=12),
       steps=st.lists(st.tuples(shapes, st.booleans()), max_size=12))
def test_fit_on_kept_counts_is_the_scan_of_every_node(free, steps):
    """Taking and giving back GPUs keeps the counts exact, and the fit read off them is the
    fit a scan of every node finds."""
    have = counts(free)
    taken: list[Victim] = []
    for shape, give_back in steps:
        if give_back and taken:
            victim = taken.pop(0)
            release(free, victim, have)  # type: ignore[arg-type]
        nodes = fit_nodes(free, shape, GPUS, have)  # type: ignore[arg-type]
        assert nodes == fit_by_scan(free, shape)
        assert fit_nodes(free, shape, GPUS) == nodes  # type: ignore[arg-type]  # counts made here
        if nodes is not None:
            take(free, nodes, shape, have)  # type: ignore[arg-type]
            mask = (1 << shape.per_node) - 1
            taken.append(Victim(len(taken), [(node, mask) for node in nodes]))
        assert have == counts(free)


def two_walks(job: Shape, free: list[int], candidates: list[Victim], budget: float):
    """The victim search as two walks: single-node victims alone, then every victim."""
    need = job.per_node
    for allow_gangs in (False, True):
        gained: dict[int, int] = {}
        stopped: dict[int, list[Victim]] = {}
        for victim in candidates:
            if victim.nodes_needed > 1 and not allow_gangs:
                continue
            for node, mask in victim.grants:
                if free[node] < 0:
                    continue
                gained[node] = gained.get(node, 0) + mask.bit_count()
                stopped.setdefault(node, []).append(victim)
                if (free[node] + gained[node] >= need
                        and sum(v.gpu_num for v in stopped[node]) <= budget):
                    return [node], stopped[node]
    return None


@st.composite
def searches(draw):
    """A working state, candidates holding GPUs on it, a job and a budget."""
    nodes = draw(st.integers(1, 6))
    free = draw(st.lists(st.one_of(st.integers(0, GPUS), st.just(UNUSABLE)), min_size=nodes,
                         max_size=nodes))
    held = [GPUS - f if f >= 0 else draw(st.integers(0, GPUS)) for f in free]
    candidates: list[Victim] = []
    for index in range(draw(st.integers(0, 8))):
        width = draw(st.integers(1, min(3, nodes)))
        chosen = draw(st.lists(st.integers(0, nodes - 1), min_size=width, max_size=width,
                               unique=True))
        grants = []
        for node in chosen:
            if held[node] == 0:
                continue
            gpus = draw(st.integers(1, held[node]))
            held[node] -= gpus
            grants.append((node, (1 << gpus) - 1))
        if grants:
            candidates.append(Victim(index, grants))
    job = Shape(1, draw(st.integers(1, GPUS)))
    budget = draw(st.one_of(st.just(math.inf), st.integers(0, 3 * GPUS).map(float)))
    return job, free, candidates, budget


@settings(max_examples=300, deadline=None)
@given(search=searches())
def test_one_walk_victim_search_is_the_two_walks(search):
    job, free, candidates, budget = search
    want = two_walks(job, free, candidates, budget)
    got = victims_on_one_node(job, free, iter(candidates), budget)  # type: ignore[arg-type]
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert got[0] == want[0] and [v.index for v in got[1]] == [v.index for v in want[1]]


def busy_trace(seed: int, *, whole_seconds: bool = False):
    """250 jobs of mixed shapes arriving faster than 4 nodes serve them (with whole-second
    times and run times, many estimated ends tie)."""
    rng = random.Random(seed)
    rows = []
    for i in range(250):
        gpus, nodes = rng.choice([(1, 1), (2, 1), (4, 1), (8, 1), (16, 2), (3, 1)])
        submit = float(i * 30 // 60 * 60) if whole_seconds else i * 30.0 + rng.random()
        rows.append(job(submit, rng.choice([20, 200, 2000, 20000]), gpus, nodes,
                        type=rng.choice(["SFT", "Eval", "Pretrain", "Debug"]),
                        user=f"u{rng.randrange(5)}"))
    return frame(rows)


def test_srtf_end_lists_are_its_ends_sorted(monkeypatch):
    """At every pass the parallel end lists read (latest first) as the ends sorted by (end,
    index), ties included, and the victims are the running jobs read from that order."""
    checked = Counter()
    original = ShortestRemainingTimeFirst.schedule

    def schedule(self, view):
        want = sorted(((end, index) for index, end in self.ends.items()), reverse=True)
        assert list(self._by_end()) == want
        checked["ties"] += len(want) - len({end for end, _ in want})
        for rank in (0.0, 150.0, 5000.0):
            expected = [view.running[i] for end, i in want
                        if end - view.now > rank and i in view.running]
            assert self.victims(view, rank) == expected
        checked["passes"] += 1
        return original(self, view)

    monkeypatch.setattr(ShortestRemainingTimeFirst, "schedule", schedule)
    result = simulate(busy_trace(5, whole_seconds=True), cluster(4), SCHEDULERS.create("srtf"))
    assert result.summary["preemptions"] > 0
    assert checked["passes"] > 100 and checked["ties"] > 0, checked


class ArmsEveryDemotion(LeastAttainedService):
    """LAS as it was: a demotion is armed for every running job below the last threshold,
    even one whose interval ends before it is due."""

    def _arm_demotion(self, job, level):
        if level >= len(self.thresholds) or job.gpu_num <= 0:
            return
        target = self.thresholds[level] + self.baseline.get(job.index, 0.0)
        when = job.last_start + (target - job.attained_closed) / job.gpu_num
        self._demotions.append((when, job.index, job.epoch, job))
        self._demotions.sort(key=lambda entry: entry[:3])  # a heap in sorted order


def test_las_skipping_demotions_due_after_the_end_decides_the_same():
    """A demotion due once the running interval has ended is never read: LAS without it gives
    the same schedule as LAS arming it (small thresholds, so demotions happen)."""
    options = {"thresholds": (500.0, 20000.0)}
    trace = busy_trace(2)
    fast = simulate(trace, cluster(4), SCHEDULERS.create("las", options))
    plain = simulate(trace, cluster(4), ArmsEveryDemotion(ArmsEveryDemotion.Config(**options)))
    pd.testing.assert_frame_equal(fast.jobs, plain.jobs)
    pd.testing.assert_frame_equal(fast.curve, plain.curve)
    assert fast.summary["preemptions"] == plain.summary["preemptions"] > 0
