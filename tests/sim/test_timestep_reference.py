"""acmesim's FIFO + ``lucid`` placement against a time-stepped reference after Lucid's loop.

The reference (``benchmarks/timestep_reference.py``) steps one second at a time; with integer
submit and run times, the event-driven engine must give every job the same start second.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from factories import cluster, frame, job
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.cluster import Cluster, ClusterSpec
from acmesim.cluster.view import ClusterView
from acmesim.policies.placement import PLACEMENTS
from acmesim.run import simulate


def _load_reference():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "timestep_reference.py"
    spec = importlib.util.spec_from_file_location("timestep_reference", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


REF = _load_reference()
GANG_SIZES = (16, 24, 32)


def _acmesim_starts(rows, nodes):
    """Start seconds (input order, measured from the first submission) under fifo + lucid."""
    result = simulate(frame(job(s, d, g, nodes=max(1, g // 8)) for s, d, g in rows),
                      cluster(nodes), "fifo", "lucid")
    by_id = dict(zip(result.jobs["job_id"], result.jobs["start_time"], strict=True))
    return [by_id[f"j{i}"] for i in range(len(rows))]


def _reference_starts(rows, nodes):
    """Reference start seconds, measured from the first submission like acmesim's."""
    origin = min(s for s, _, _ in rows)
    return [s - origin for s in REF.simulate_fifo(rows, nodes)]


def _state(free):
    """A cluster whose nodes have ``free`` GPUs free, reached in a shuffled allocation order."""
    state = Cluster(ClusterSpec(name="t", nodes=len(free), nodes_per_leaf=2,
                                leaves_per_spine=2))
    order = sorted(range(len(free)), key=lambda n: (free[n] * 7919 + n * 104729) % 97)
    for i, node in enumerate(order):
        if free[node] < 8:
            state.allocate(i, ((node, 8 - free[node]),))
    return state


def _job_info(gpus):
    """What a placement reads of a job of ``gpus`` GPUs (gangs take whole nodes)."""
    whole = gpus > 8
    return SimpleNamespace(gpu_num=gpus, nodes_needed=gpus // 8 if whole else 1,
                           per_node=8 if whole else gpus)


# ---------------------------------------------------------------- hand-computed oracles
def test_ties_go_to_the_lowest_node_and_change_start_times():
    # 2 nodes. A,B on node 0; C,D on node 1. D ends at 3 (node 1 -> 4 free), A at 4 (node 0
    # -> 4 free). E (4 GPUs, t=5) ties between nodes 0 and 1: Lucid takes node 0, next to B
    # (ends 10); node 1 (C ends 30) then frees whole only at 30, so F (8 GPUs, t=6) starts at
    # 30. Taking node 1 instead (the node that became 4-free first) would start F at 10.
    rows = [(0, 4, 4), (0, 10, 4), (0, 30, 4), (0, 3, 4), (5, 50, 4), (6, 1, 8)]
    expected = [0, 0, 0, 0, 5, 30]
    assert REF.simulate_fifo(rows, nodes=2) == expected
    assert _acmesim_starts(rows, nodes=2) == expected


def test_fifo_head_blocks_and_a_release_serves_a_start_in_the_same_second():
    # 2 nodes. A (8 GPUs) runs 0..5 on node 0, X (4) holds half of node 1. B (8, t=1) waits for
    # A's release at 5 and starts at 5; C (1 GPU, t=1) would fit on node 1 at once but may not
    # pass the blocked head B, so it also starts at 5.
    rows = [(0, 5, 8), (0, 20, 4), (1, 2, 8), (1, 1, 1)]
    expected = [0, 0, 5, 5]
    assert REF.simulate_fifo(rows, nodes=2) == expected
    assert _acmesim_starts(rows, nodes=2) == expected


def test_reference_consolidate_rules():
    select = REF.consolidate_select
    assert select([3, 5, 3, 8], 3) == [(0, 3)]  # fewest free that fits, lowest index on ties
    assert select([3, 5, 3, 8], 4) == [(1, 4)]
    assert select([8, 5, 8, 8], 16) == [(0, 8), (2, 8)]  # lowest whole free nodes
    assert select([8, 5, 8], 24) is None  # refused at the first non-whole node
    assert select([8, 5, 8, 3], 12) == [(0, 8), (2, 4)]  # remainder on the next most-free node
    assert select([8, 5, 3, 0], 12) == [(0, 8), (1, 4)]
    assert select([8, 3, 8], 20) is None  # remainder 4 > 3 free on the next node
    assert select([0, 0, 2, 1], 4) is None  # total free check


def test_reference_rejects_inputs_lucid_would_loop_on():
    with pytest.raises(ValueError, match="duration"):
        REF.simulate_fifo([(0, 0, 1)], nodes=1)
    with pytest.raises(ValueError, match="gpus"):
        REF.simulate_fifo([(0, 5, 9)], nodes=1)
    with pytest.raises(ValueError, match="integer"):
        REF.simulate_fifo([(0.5, 5, 1)], nodes=1)


def test_reference_until_stops_early():
    rows = [(0, 5, 8), (1, 2, 8)]
    assert REF.simulate_fifo(rows, nodes=1, until=4) == [0, None]


# ---------------------------------------------------------------- properties
@settings(max_examples=150, deadline=None)
@given(free=st.lists(st.integers(0, 8), min_size=1, max_size=8),
       gpus=st.sampled_from((1, 2, 3, 4, 5, 6, 7, 8) + GANG_SIZES))
def test_lucid_placement_matches_the_reference_selection(free, gpus):
    placed = PLACEMENTS.create("lucid").place(_job_info(gpus), ClusterView(_state(free)))
    expected = REF.consolidate_select(free, gpus)
    assert (list(placed) if placed is not None else None) == expected


@st.composite
def _traces(draw):
    nodes = draw(st.integers(1, 4))
    sizes = [g for g in (1, 2, 3, 4, 5, 6, 7, 8) + GANG_SIZES if g <= 8 * nodes]
    rows = draw(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 40),
                                   st.sampled_from(sizes)), min_size=1, max_size=30))
    rows.sort(key=lambda row: row[0])
    return nodes, rows


@settings(max_examples=60, deadline=None)
@given(trace=_traces())
def test_event_driven_start_times_equal_the_time_stepped_reference(trace):
    nodes, rows = trace
    assert _acmesim_starts(rows, nodes) == _reference_starts(rows, nodes)
