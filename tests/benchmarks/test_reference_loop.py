"""The heapq reference loop (``benchmarks/reference_loop.py``) gives acmesim's start times exactly.

``bench_scale.py`` compares the two on whole traces; these tests keep that claim true on small
inputs: a hand-computed case, a synthetic Seren trace on a small cluster with Seren's start-up
latency, and random tables with ties, zero durations, gangs and a launcher queue.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

from factories import cluster, frame, job
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.cluster import ClusterSpec, cluster_spec
from acmesim.run import simulate
from acmesim.synth import generate_trace

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


LOOP = _load("reference_loop")
INPUT = _load("reference_input")


def _reference(table, spec: ClusterSpec):
    """The job ids (engine order) and the reference replay of ``table``."""
    given_jobs = INPUT.reference_jobs(table, spec)
    replay = LOOP.replay_fifo(
        given_jobs.jobs, spec.nodes, spec.gpus_per_node, nodes_per_leaf=spec.nodes_per_leaf,
        leaves_per_spine=spec.leaves_per_spine, launch_interval=spec.startup.launch_interval)
    return given_jobs.job_id, replay


def _assert_identical(table, spec: ClusterSpec):
    """Run both; start times bit-equal, same nodes, same events; returns acmesim's jobs."""
    result = simulate(table, spec, "fifo", "consolidate")
    ids, replay = _reference(table, spec)
    jobs = result.jobs
    mismatches = INPUT.start_mismatches(ids, replay.starts, jobs["job_id"].tolist(),
                                        jobs["start_time"].tolist())
    assert not mismatches, INPUT.describe_mismatches(mismatches, len(ids))
    assert not INPUT.placement_mismatches(ids, replay.nodes, jobs["nodes"].tolist())
    assert replay.events == result.summary["events"]
    return jobs


def test_hand_computed_head_of_line_blocking():
    # Two nodes on one leaf. A takes node 0 (a whole node from the leaf); B's 4 GPUs find no
    # partly free node, so it takes node 1; C (8 GPUs) waits for B's end at 5; D (1 GPU) is
    # behind C and waits although 4 GPUs are free from 1 to 5, until C ends at 6.
    rows = [(0.0, 10.0, 8, 1, 0.0), (0.0, 5.0, 4, 1, 0.0), (1.0, 1.0, 8, 1, 0.0),
            (1.0, 1.0, 1, 1, 0.0)]
    starts, nodes, events = LOOP.replay_fifo(rows, nodes=2, nodes_per_leaf=2)
    assert starts == [0.0, 0.0, 5.0, 6.0]
    assert nodes == [[0], [1], [1], [1]]
    # arrivals at 0 and 1, completions at 5, 6, 7 (D) and 10, a pass after each time
    assert events == 2 + 4 + 6


def test_start_up_latency_delays_the_start_and_the_end():
    rows = [(0.0, 10.0, 8, 1, 2.5), (0.0, 1.0, 8, 1, 0.0)]
    starts, _, _ = LOOP.replay_fifo(rows, nodes=1)
    assert starts == [2.5, 12.5]  # the second waits for 2.5 s start-up + 10 s of work


def test_synthetic_seren_trace_on_a_small_cluster():
    spec = ClusterSpec(name="small", nodes=40, nodes_per_leaf=4, leaves_per_spine=2,
                       startup=cluster_spec("seren").startup)
    trace = generate_trace("seren", 0.25, 3)
    trace = trace[trace["gpu_num"] <= spec.total_gpus]
    jobs = _assert_identical(trace, spec)
    gpu = jobs[jobs["pool"] == "gpu"]
    assert len(gpu) > 400
    # the comparison covers queueing and gangs wider than a leaf and than a spine
    assert (gpu["queue_delay"] > 600).sum() > 50
    assert gpu["gpu_num"].max() > spec.nodes_per_leaf * spec.leaves_per_spine * 8


ROW = st.tuples(st.integers(0, 6), st.sampled_from([0, 1, 2, 3, 7.5]),
                st.sampled_from([1, 1, 2, 3, 4, 8, 12, 16, 24, 40]), st.sampled_from([1, 1, 2]))


@settings(max_examples=25, deadline=None)
@given(rows=st.lists(ROW, min_size=1, max_size=30), launch=st.sampled_from([0.0, 0.0, 0.5]),
       nodes=st.integers(5, 7))
def test_random_tables_give_identical_starts(rows, launch, nodes):
    spec = cluster(nodes, per_leaf=2, per_spine=2)
    if launch:
        spec = ClusterSpec(name="launcher", nodes=nodes, nodes_per_leaf=2, leaves_per_spine=2,
                           startup={"launch_interval": launch})
    table = frame(job(s, r, g, nodes=n) for s, r, g, n in rows
                  if max(n, math.ceil(g / 8)) <= nodes)
    if len(table):
        _assert_identical(table, spec)
