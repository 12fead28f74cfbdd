"""Exact makespans of both modes and of each technique alone, worked out by hand.

The tiny setup used throughout (chosen so every number is exact in binary floating point):

- one node, 2 GPUs; NIC 8 Gb/s = 1 GB/s; host->GPU 4 GB/s; 16 CPU threads, trials keep 4 each
  (2 x 4 = 8), so 8 spare threads = two 4-thread metric jobs at once.
- model: 1e9 params x 2 bytes = 2 GB. Remote load alone 2 s, two at once 4 s each; local 0.5 s.
- suite (prep, inference, metric) seconds: A (1, 8, 6), B (1, 3, 1), C (1, 1, 0), D (.5, .5, .5).
- planner options for packing: merge_below 0.25, min_trial_s 1 (so 60 s never binds here).
"""

from __future__ import annotations

import math

import pytest
from eval_tiny import CLUSTER, MODEL
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.core.errors import ConfigError
from acmesim.evaluation import Dataset, EvalCluster, EvalRequest, ModelSpec
from acmesim.studies.evaluation import evaluate, plan_request, simulate

SUITE = (
    Dataset("A", 1.0, 8.0, 6.0),
    Dataset("B", 1.0, 3.0, 1.0),
    Dataset("C", 1.0, 1.0, 0.0),
    Dataset("D", 0.5, 0.5, 0.5),
)
REQUEST = EvalRequest("r", MODEL, SUITE)
PACKING = {"merge_below": 0.25, "min_trial_s": 1.0}
ALL_OFF = {"decouple_loading": False, "decouple_metrics": False, "prior_packing": False}


def technique(**on: bool) -> dict:
    """Decoupled-scheduler options with only the named techniques switched on."""
    return {**PACKING, **ALL_OFF, **on}


def timeline(result):
    """trial label -> (load_start, load_end, inference_end, metric_end, released)."""
    return {
        t.datasets: (t.load_start, t.load_end, t.inference_end, t.metric_end, t.released)
        for t in result.trials
    }


def metric_ends(result):
    return {d.dataset: d.metric_end for d in result.datasets}


def test_coupled_baseline():
    # t=0: A -> gpu0, B -> gpu1; both read 2 GB through the 1 GB/s NIC at once: loaded at 4.
    # A: prep 4-5, inference 5-13, metric on its GPU 13-19, released 19.
    # B: prep 4-5, inference 5-8, metric 8-9, released 9 -> C on gpu1.
    # C: load alone 9-11, prep 11-12, inference 12-13, no metric, released 13 -> D on gpu1.
    # D: load alone 13-15 (A is not loading), prep 15-15.5, inference 15.5-16, metric 16-16.5.
    result = evaluate(REQUEST, CLUSTER, "coupled")
    assert timeline(result) == {
        "A": (0.0, 4.0, 13.0, 19.0, 19.0),
        "B": (0.0, 4.0, 8.0, 9.0, 9.0),
        "C": (9.0, 11.0, 13.0, 13.0, 13.0),
        "D": (13.0, 15.0, 16.0, 16.5, 16.5),
    }
    s = result.summary()
    assert s.makespan_s == 19.0
    assert s.time_to_first_result_s == 9.0  # B
    assert s.gpu_time_held_s == 19.0 + 9.0 + 4.0 + 3.5
    assert s.gpu_inference_s == 12.5
    assert s.gpu_idle_held_s == 35.5 - 12.5
    assert [(t.node, t.gpu) for t in result.trials] == [(0, 0), (0, 1), (0, 1), (0, 1)]
    assert result.prefetches == []
    assert {d.metric_mode for d in result.datasets} == {"gpu"}


def test_decoupled_with_every_technique_off_is_the_coupled_baseline():
    coupled = evaluate(REQUEST, CLUSTER, "coupled")
    off = evaluate(REQUEST, CLUSTER, "decoupled", technique())
    assert off.trials_frame().equals(coupled.trials_frame())
    assert off.datasets_frame().equals(coupled.datasets_frame())


def test_decoupled_loading_alone():
    # t=0: A -> gpu0 starts the node's one prefetch (NIC alone, 2 GB at 1 GB/s): copy at 2.
    # A and B wait for it, then copy host -> GPU in 0.5 s: loaded at 2.5.
    # A: prep 2.5-3.5, inference 3.5-11.5, metric 11.5-17.5 (on GPU).
    # B: prep 2.5-3.5, inference 3.5-6.5, metric 6.5-7.5 -> C on gpu1 at 7.5.
    # C: local load 7.5-8, prep 8-9, inference 9-10 -> D at 10.
    # D: local load 10-10.5, prep 10.5-11, inference 11-11.5, metric 11.5-12.
    result = evaluate(REQUEST, CLUSTER, "decoupled", technique(decouple_loading=True))
    assert timeline(result) == {
        "A": (0.0, 2.5, 11.5, 17.5, 17.5),
        "B": (0.0, 2.5, 6.5, 7.5, 7.5),
        "C": (7.5, 8.0, 10.0, 10.0, 10.0),
        "D": (10.0, 10.5, 11.5, 12.0, 12.0),
    }
    assert result.summary().makespan_s == 17.5
    assert [(p.node, p.start, p.end) for p in result.prefetches] == [(0, 0.0, 2.0)]


def test_decoupled_metrics_alone():
    # Loading as in the baseline (both at 4). A: prep 4-5, inference 5-13, GPU released at 13,
    # metric as a CPU job 13-19. B: inference ends 8, released 8, CPU metric 8-9.
    # C on gpu1 at 8: load alone 8-10, prep 10-11, inference 11-12, released 12 (empty metric).
    # D on gpu1 at 12: load alone 12-14, prep 14-14.5, inference 14.5-15, released 15,
    # metric 15-15.5 (A's and D's jobs use 4 + 4 = 8 spare threads: no wait).
    # Makespan stays 19: A's 8 s inference + 6 s metric is the critical path.
    result = evaluate(REQUEST, CLUSTER, "decoupled", technique(decouple_metrics=True))
    assert timeline(result) == {
        "A": (0.0, 4.0, 13.0, 19.0, 13.0),
        "B": (0.0, 4.0, 8.0, 9.0, 8.0),
        "C": (8.0, 10.0, 12.0, 12.0, 12.0),
        "D": (12.0, 14.0, 15.0, 15.5, 15.0),
    }
    s = result.summary()
    assert s.makespan_s == 19.0
    assert s.gpu_time_held_s == 13.0 + 8.0 + 4.0 + 3.0
    assert {d.metric_mode for d in result.datasets} == {"cpu"}


def test_prior_packing_alone():
    # Metrics stay on the GPU, so GPU costs are work + metric: A 15, B 5, C 2, D 1.5; two slots
    # -> W = 23.5 / 2 = 11.75. A: target 11.75 - 6 = 5.75 < work 9 -> 2 shards of (.5, 4).
    # Merge below .25 W = 2.9375: C and D -> one trial [C, D]. Keys (work + metric):
    # A shards 10.5, B 5, CD 3.5 -> order A[1/2], A[2/2], B, C;D.
    # t=0: both A shards load together (4), prep 4-4.5, inference 4.5-8.5. A[1/2] resumes
    # first and is not A's last shard: released 8.5 -> B on gpu0. A[2/2] completes A: metric
    # on its GPU 8.5-14.5, released 14.5 -> C;D on gpu1.
    # B: load alone 8.5-10.5, prep -11.5, inference -14.5, metric -15.5.
    # C;D: load alone 14.5-16.5, C prep -17.5, inference -18.5 (metric 0), D prep -19,
    # inference -19.5, metric -20. Makespan 20: worse than the baseline's 19 here.
    result = evaluate(REQUEST, CLUSTER, "decoupled", technique(prior_packing=True))
    got = timeline(result)
    assert list(got) == ["A[1/2]", "A[2/2]", "B", "C;D"]
    assert got["A[1/2]"][:3] == (0.0, 4.0, 8.5) and math.isnan(got["A[1/2]"][3])
    assert got["A[1/2]"][4] == 8.5
    assert got["A[2/2]"] == (0.0, 4.0, 8.5, 14.5, 14.5)
    assert got["B"] == (8.5, 10.5, 14.5, 15.5, 15.5)
    assert got["C;D"] == (14.5, 16.5, 19.5, 20.0, 20.0)
    assert metric_ends(result) == {"A": 14.5, "B": 15.5, "C": 18.5, "D": 20.0}
    assert result.summary().makespan_s == 20.0


def test_fully_decoupled():
    # GPU costs = work: A 9, B 4, C 2, D 1 -> W = 8. A: target max(8 - 6, 1) = 2 -> 5 shards,
    # capped at 2 slots -> 2 shards (.5, 4). Merge below 2: only D (a trial of its own).
    # Order by key: A[1/2], A[2/2] (10.5), B (5), C (2), D (1.5).
    # t=0: prefetch 0-2, local loads 2-2.5, prep -3, inference 3-7. Both released at 7; A's
    # metric CPU job 7-13. B on gpu0 7: load -7.5, prep -8.5, inference -11.5, metric -12.5.
    # C on gpu1 7: load -7.5, prep -8.5, inference -9.5, empty metric at 9.5 -> D on gpu1:
    # load -10, prep -10.5, inference -11, metric 11-11.5. Makespan 13 (A's metric).
    result = evaluate(REQUEST, CLUSTER, "decoupled", PACKING)
    got = timeline(result)
    assert list(got) == ["A[1/2]", "A[2/2]", "B", "C", "D"]
    assert got["A[2/2]"] == (0.0, 2.5, 7.0, 13.0, 7.0)
    assert got["B"] == (7.0, 7.5, 11.5, 12.5, 11.5)
    assert got["C"] == (7.0, 7.5, 9.5, 9.5, 9.5)
    assert got["D"] == (9.5, 10.0, 11.0, 11.5, 11.0)
    assert metric_ends(result) == {"A": 13.0, "B": 12.5, "C": 9.5, "D": 11.5}
    s = result.summary()
    assert s.makespan_s == 13.0
    assert s.time_to_first_result_s == 9.5
    assert s.gpu_time_held_s == 7.0 + 7.0 + 4.5 + 2.5 + 1.5
    assert s.gpu_idle_held_s == 22.5 - 12.5


def test_metric_jobs_queue_fifo_for_cpu_threads():
    # 12 threads - 2 x 4 kept by trials = 4 spare: one metric job at a time. Same GPU timeline
    # as test_fully_decoupled; metric jobs queue in submission order: A (7, runs 7-13),
    # C (9.5), D (11), B (11.5) -> C 13-13, D 13-13.5, B 13.5-14.5.
    cluster = EvalCluster(nodes=1, gpus_per_node=2, cpu_threads_per_node=12, nic_gbps=8.0,
                          host_to_gpu_gbytes_per_s=4.0, trial_cpu_threads=4,
                          metric_cpu_threads=4)
    result = evaluate(REQUEST, cluster, "decoupled", PACKING)
    starts = {d.dataset: d.metric_start for d in result.datasets}
    assert starts == {"A": 7.0, "B": 13.5, "C": 13.0, "D": 13.0}
    assert metric_ends(result) == {"A": 13.0, "B": 14.5, "C": 13.0, "D": 13.5}
    assert result.summary().makespan_s == 14.5


def test_two_requests_share_the_nic_with_staggered_loads():
    # X (inference 10) submitted at 0, Y (inference 1, another 2 GB model) at 1, coupled.
    # X alone on [0,1): 1 GB left. Then 0.5 GB/s each: X loaded at 3; Y has 1 GB by then and
    # finishes alone at 4. X ends 3 + 10 = 13; Y ends 4 + 1 = 5 -> makespan 5 - 1 = 4.
    x = EvalRequest("x", MODEL, (Dataset("X", 0.0, 10.0, 0.0),), submit_time=0.0)
    y = EvalRequest("y", ModelSpec("m2", 1e9), (Dataset("Y", 0.0, 1.0, 0.0),), submit_time=1.0)
    plans = [plan_request(r, CLUSTER, "coupled") for r in (y, x)]
    result = simulate(plans, CLUSTER)
    assert result.summary("x").makespan_s == 13.0
    assert result.summary("y").makespan_s == pytest.approx(4.0, rel=1e-12)
    assert [t.load_end for t in result.trials] == pytest.approx([3.0, 4.0], rel=1e-12)
    with pytest.raises(KeyError, match="requests: x, y"):
        result.summary("z")
    with pytest.raises(ValueError, match="several requests"):
        result.summary()


def test_host_copy_is_reused_by_a_later_request_of_the_same_model():
    # Two one-dataset requests of model m, submitted at 0 and 20 with decoupled loading: one
    # prefetch (0-2); the second request loads locally at once (20-20.5).
    first = EvalRequest("p", MODEL, (Dataset("P", 0.0, 1.0, 0.0),), submit_time=0.0)
    later = EvalRequest("q", MODEL, (Dataset("Q", 0.0, 1.0, 0.0),), submit_time=20.0)
    plans = [plan_request(r, CLUSTER, "decoupled", PACKING) for r in (first, later)]
    result = simulate(plans, CLUSTER)
    assert len(result.prefetches) == 1
    assert [(t.load_start, t.load_end) for t in result.trials] == [(0.0, 2.5), (20.0, 20.5)]


def test_multi_gpu_trials_take_whole_gpu_groups():
    # 2-GPU model (2e9 params = 4 GB) on one 4-GPU node: two trials at once on GPUs 0-1, 2-3.
    # Remote: 8 GB total through 1 GB/s -> both loaded at 8. Local: 4 GB / (2 x 4 GB/s) = 0.5 s.
    cluster = EvalCluster(nodes=1, gpus_per_node=4, cpu_threads_per_node=32, nic_gbps=8.0,
                          host_to_gpu_gbytes_per_s=4.0)
    model = ModelSpec("big", params=2e9, gpus=2)
    request = EvalRequest("r2", model, (Dataset("E", 0, 2, 0), Dataset("F", 0, 2, 0)))
    coupled = evaluate(request, cluster, "coupled")
    assert [(t.gpu, t.gpu_num, t.load_end) for t in coupled.trials] == [(0, 2, 8.0), (2, 2, 8.0)]
    assert coupled.summary().gpu_time_held_s == 2 * 2 * 10.0
    decoupled = evaluate(request, cluster, "decoupled", technique(decouple_loading=True))
    assert [t.load_end for t in decoupled.trials] == [4.5, 4.5]  # prefetch 4 s + local 0.5 s


def test_model_wider_than_a_node_is_rejected():
    request = EvalRequest("wide", ModelSpec("w", 1e9, gpus=4), (Dataset("Z", 0, 1, 0),))
    with pytest.raises(ConfigError, match="needs 4 GPUs per trial, but nodes have 2"):
        evaluate(request, CLUSTER, "coupled")


datasets = st.lists(
    st.tuples(*[st.integers(min_value=0, max_value=20).map(lambda q: q / 2)] * 3),
    min_size=1, max_size=7,
)
switches = st.fixed_dictionaries({k: st.booleans() for k in ALL_OFF})


@settings(max_examples=40, deadline=None)
@given(datasets, switches, st.integers(min_value=1, max_value=2))
def test_invariants_on_random_suites(times, on, nodes):
    suite = tuple(Dataset(f"d{i}", *t) for i, t in enumerate(times))
    request = EvalRequest("r", MODEL, suite, submit_time=3.0)
    cluster = EvalCluster(nodes=nodes, gpus_per_node=2, cpu_threads_per_node=16, nic_gbps=8.0,
                          host_to_gpu_gbytes_per_s=4.0)
    result = evaluate(request, cluster, "decoupled", {**PACKING, **on})
    s = result.summary()
    # Every dataset got a result, every shard ran exactly once.
    assert all(d.metric_end >= d.inference_end >= 3.0 for d in result.datasets)
    assert s.gpu_inference_s == pytest.approx(sum(d.inference_s for d in suite))
    # Never more trials on a GPU at once than one: intervals on each GPU do not overlap.
    by_gpu: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for t in result.trials:
        by_gpu.setdefault((t.node, t.gpu), []).append((t.load_start, t.released))
    for spans in by_gpu.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
    # Lower bounds: a dataset's metric follows its inference; one load at the very least.
    load_lb = cluster.local_load_s(MODEL) if on["decouple_loading"] else 2.0
    for d in suite:
        assert s.makespan_s >= load_lb + d.metric_s - 1e-9
    assert s.makespan_s >= s.gpu_inference_s / cluster.gpus - 1e-9
    assert s.gpu_idle_held_s >= -1e-9
    # Decoupled metrics: every GPU is released when its trial's inference ends.
    if on["decouple_metrics"]:
        assert all(t.released == t.inference_end for t in result.trials)
