"""Hand-worked schedules: tiny traces whose correct outcome is derived in the comments.

Conventions: one node has 8 GPUs; the consolidate placement puts a single-node job on the node
with the fewest free GPUs that fits (lowest index on ties); a preempted job resumes after a
restart overhead of 40 s (<= 8 GPUs) and, by default, keeps all its work (graceful stop), so
its lost GPU time is gpu_num x 40 s. A scheduling pass runs only when something happens.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from acmesim.cluster.spec import ClusterSpec
from acmesim.core.errors import ConfigError
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.run import simulate

T0 = pd.Timestamp("2023-03-01", tz="UTC")


def frame(rows: list[tuple]) -> pd.DataFrame:
    """A normalized job table from (id, user, type, submit s, run s, gpus, nodes) rows."""
    return pd.DataFrame([
        {"job_id": job, "user": user, "type": kind, "state": "COMPLETED",
         "submit_time": T0 + pd.Timedelta(seconds=submit),
         "start_time": T0 + pd.Timedelta(seconds=submit), "run_time": float(run),
         "gpu_num": gpus, "node_num": nodes, "cpu_num": 0}
        for job, user, kind, submit, run, gpus, nodes in rows])


def run(rows: list[tuple], scheduler: str, nodes: int = 1, options: dict | None = None):
    """Simulate ``rows`` on ``nodes`` nodes; returns (jobs table indexed by id, summary)."""
    sched = SCHEDULERS.create(scheduler, options)
    result = simulate(frame(rows), ClusterSpec("t", nodes=nodes), sched, audit=True)
    return result.jobs.set_index("job_id"), result.summary


def starts(jobs: pd.DataFrame) -> dict[str, float]:
    """First start of every job."""
    return jobs["start_time"].to_dict()


def ends(jobs: pd.DataFrame) -> dict[str, float]:
    """End of every job."""
    return jobs["end_time"].to_dict()


# ---------------------------------------------------------------------------- EASY backfill

def test_easy_backfills_a_job_that_ends_before_the_reservation():
    # One node. A (4 GPUs) runs 0-100. H (8 GPUs) is the head from t=1 and does not fit: its
    # reservation (shadow time) is A's end, 100. B (4 GPUs, 50 s) arrives at 2, fits in the 4
    # free GPUs and ends at 52 <= 100: it backfills at 2. C (4 GPUs, 200 s) arrives at 3: no GPU
    # is free (B took them). At 52 four are free, but C would run to 252 > 100 on the only node
    # H needs, so it waits. H runs 100-110, then C 110-310. Strict FIFO would start B after H.
    rows = [("A", "u", "SFT", 0, 100, 4, 1), ("H", "u", "SFT", 1, 10, 8, 1),
            ("B", "u", "Eval", 2, 50, 4, 1), ("C", "u", "Eval", 3, 200, 4, 1)]
    jobs, _ = run(rows, "easy_backfill")
    assert starts(jobs) == {"A": 0, "H": 100, "B": 2, "C": 110}
    fifo, _ = run(rows, "fifo")
    assert starts(fifo) == {"A": 0, "H": 100, "B": 110, "C": 110}


def test_easy_backfills_past_the_reservation_on_nodes_the_head_does_not_need():
    # Two nodes. A (8 GPUs) takes node 0 for 0-100; X (4 GPUs) goes to node 1 for 0-1000.
    # H (8 GPUs) is blocked from t=1; the first node with 8 free GPUs is node 0 at 100 (shadow).
    # D (4 GPUs, 500 s) arrives at 2: it runs past 100, but it is placed on node 1 (the only
    # node with free GPUs), and at 100 node 0 is still whole for H, so D backfills at 2.
    # E (4 GPUs) arrives at 3 when nothing is free; H takes node 0 for 100-110, and E gets
    # node 0 when H ends at 110 (D and X still hold node 1 then).
    rows = [("A", "u", "SFT", 0, 100, 8, 1), ("X", "u", "SFT", 0, 1000, 4, 1),
            ("H", "u", "SFT", 1, 10, 8, 1), ("D", "u", "Eval", 2, 500, 4, 1),
            ("E", "u", "Eval", 3, 500, 4, 1)]
    jobs, _ = run(rows, "easy_backfill", nodes=2)
    assert starts(jobs) == {"A": 0, "X": 0, "H": 100, "D": 2, "E": 110}
    assert jobs.loc["D", "nodes"] == "n0001" and jobs.loc["H", "nodes"] == "n0000"


def test_easy_reserves_whole_nodes_for_a_multi_node_head():
    # Two nodes. A (8 GPUs) holds node 0 for 0-100, B (2 GPUs) node 1 for 0-300. H (16 GPUs,
    # 2 nodes) needs both nodes whole: shadow time 300 (B's end). C (2 GPUs, 250 s) arrives
    # at 2 and ends at 252 <= 300: it backfills (on node 1, best fit). D (2 GPUs, 400 s) would
    # end after 300 and every placement takes a GPU of a node H needs then, so it waits at 3,
    # 100 and 252; H runs 300-310 and D starts at 310.
    rows = [("A", "u", "SFT", 0, 100, 8, 1), ("B", "u", "SFT", 0, 300, 2, 1),
            ("H", "u", "Pretrain", 1, 10, 16, 2), ("C", "u", "Eval", 2, 250, 2, 1),
            ("D", "u", "Eval", 3, 400, 2, 1)]
    jobs, _ = run(rows, "easy_backfill", nodes=2)
    assert starts(jobs) == {"A": 0, "B": 0, "H": 300, "C": 2, "D": 310}


def test_easy_with_history_predictor_reports_its_error():
    # The user_history predictor knows nothing before the first job ends, so every estimate
    # made at t=0 is the prior (1,414 s); errors: |1414-100| and |1414-30|.
    rows = [("A", "u", "SFT", 0, 100, 8, 1), ("B", "u", "SFT", 0, 30, 8, 1)]
    _, summary = run(rows, "easy_backfill", options={"predictor": "user_history"})
    assert summary["predictor"] == "user_history"
    assert summary["prediction_jobs"] == 2
    assert summary["prediction_mae"] == pytest.approx((1314 + 1384) / 2)
    assert summary["prediction_bias"] == pytest.approx((1314 + 1384) / 2)


# ---------------------------------------------------------------------------- SJF

SJF_ROWS = [("A", "u", "SFT", 0, 100, 8, 1), ("L", "u", "SFT", 1, 500, 8, 1),
            ("S", "u", "SFT", 2, 50, 8, 1), ("T", "u", "Eval", 3, 20, 4, 1),
            ("U", "u", "Eval", 4, 1000, 2, 1)]


def test_sjf_orders_by_run_time_with_head_of_line_blocking():
    # One node, A runs 0-100. At 100 the queue by run time is T (20), S (50), L (500), U (1000).
    # T starts (4 GPUs); S needs 8 and does not fit: strict order stops the pass (U waits).
    # T ends at 120: S 120-170, then L 170-670, then U 670-1670.
    jobs, _ = run(SJF_ROWS, "sjf")
    assert starts(jobs) == {"A": 0, "T": 100, "S": 120, "L": 170, "U": 670}


def test_sjf_without_head_of_line_skips_jobs_that_do_not_fit():
    # Same trace, head_of_line=false: at 100 T starts, S and L do not fit and are skipped, U
    # (2 GPUs) fits and starts. At 120 only 6 GPUs are free until U ends at 1100, so S runs
    # 1100-1150 and L 1150-1650: skipping starves the 8-GPU jobs.
    jobs, _ = run(SJF_ROWS, "sjf", options={"head_of_line": False})
    assert starts(jobs) == {"A": 0, "T": 100, "U": 100, "S": 1100, "L": 1150}


# ---------------------------------------------------------------------------- QSSF

QSSF_ROWS = [("A", "u1", "SFT", 0, 10, 4, 1), ("K", "u2", "SFT", 0, 200, 4, 1),
             ("B", "u3", "SFT", 5, 500, 8, 1), ("C", "u1", "SFT", 300, 1000, 8, 1),
             ("E", "u2", "SFT", 310, 20, 8, 1)]


def test_qssf_ranks_by_each_users_history_never_the_future():
    # One node. A and K (4 GPUs each) start at 0; A ends at 10, K at 200. B (8 GPUs) waits
    # until 200 and runs 200-700. C (u1) arrives at 300: u1 has no 8-GPU history, its mean is
    # A's 10 s, so C's predicted GPU time is 8 x 10 = 80. E (u2) arrives at 310: u2's mean is
    # K's 200 s -> 1600. At 700 C goes first (700-1700), E after (1700-1720), although E is
    # really the shorter job.
    jobs, summary = run(QSSF_ROWS, "qssf")
    assert starts(jobs) == {"A": 0, "K": 0, "B": 200, "C": 700, "E": 1700}
    # Estimates: A, K and B were submitted before any job ended (B at 5 < A's end at 10), so
    # they got the prior 1,414 s; C got 10, E got 200. Actual: 10, 200, 500, 1000, 20.
    errors = [1414 - 10, 1414 - 200, 1414 - 500, 10 - 1000, 200 - 20]
    actual = [10, 200, 500, 1000, 20]
    assert summary["prediction_jobs"] == 5
    assert summary["prediction_mae"] == pytest.approx(sum(map(abs, errors)) / 5)
    assert summary["prediction_bias"] == pytest.approx(sum(errors) / 5)
    assert summary["prediction_mre"] == pytest.approx(
        sum(abs(e) / a for e, a in zip(errors, actual, strict=True)) / 5)


def test_qssf_with_the_oracle_ranks_by_true_gpu_time():
    # With recorded run times, E (8 x 20 = 160) goes before C (8 x 1000): E 700-720, C 720.
    jobs, summary = run(QSSF_ROWS, "qssf", options={"predictor": "oracle"})
    assert starts(jobs)["E"] == 700 and starts(jobs)["C"] == 720
    assert summary["prediction_mae"] == 0


# ---------------------------------------------------------------------------- SRTF

def test_srtf_preempts_the_longest_remaining_job():
    # One node. L (8 GPUs, 1000 s) starts at 0. S (8 GPUs, 100 s) arrives at 10: 100 < L's
    # 990 left, so L is preempted (it keeps its 10 s of work) and S runs 10-110. M (4 GPUs,
    # 300 s) arrives at 20: S has 90 s left, no preemption; at 110 M (300) goes before L (990)
    # and L does not fit beside it. M ends at 410; L resumes: 40 s restart + 990 s -> 1440.
    rows = [("L", "u", "SFT", 0, 1000, 8, 1), ("S", "u", "Eval", 10, 100, 8, 1),
            ("M", "u", "Eval", 20, 300, 4, 1)]
    jobs, summary = run(rows, "srtf")
    assert starts(jobs) == {"L": 0, "S": 10, "M": 110}
    assert ends(jobs) == {"L": 1440, "S": 110, "M": 410}
    assert jobs.loc["L", "preemptions"] == 1
    assert jobs.loc["L", "lost_gpu_time"] == 8 * 40
    assert jobs.loc["L", "run_time"] == 10 + 40 + 990
    assert summary["preemptions"] == 1


def test_srtf_prefers_a_small_victim_over_a_gang():
    # Three nodes. G (16 GPUs, 2 nodes) holds nodes 0-1 for 0-5000; V (8 GPUs) holds node 2
    # for 0-1000. P (8 GPUs, 100 s) arrives at 10: both G (4990 left) and V (990 left) are
    # longer. Single-node victims are tried first, so V is preempted, not the 16-GPU gang.
    rows = [("G", "u", "Pretrain", 0, 5000, 16, 2), ("V", "u", "SFT", 0, 1000, 8, 1),
            ("P", "u", "Eval", 10, 100, 8, 1)]
    jobs, _ = run(rows, "srtf", nodes=3)
    assert jobs.loc["G", "preemptions"] == 0 and jobs.loc["V", "preemptions"] == 1
    assert starts(jobs)["P"] == 10
    assert ends(jobs)["V"] == 110 + 40 + 990


# ---------------------------------------------------------------------------- LAS (Tiresias)

LAS_ROWS = [("A", "u", "SFT", 0, 5000, 8, 1), ("C", "u", "Eval", 1000, 100, 8, 1),
            ("B", "u", "Eval", 3000, 100, 8, 1)]


def test_las_demotes_preempts_and_keeps_fifo_inside_a_queue():
    # One node, threshold 18,000 GPU-s. At 1000 A has 8,000 GPU-s: same queue (0) as C, so no
    # preemption; C waits. A crosses 18,000 at 2,250 s, which the scheduler sees at the next
    # pass (B's arrival at 3000): A is now in queue 1, C and B in queue 0, so A is preempted
    # and C (submitted first) runs 3000-3100, then B 3100-3200. A resumes at 3200 with 2000 s
    # of work left after its 40 s restart: ends at 5240.
    jobs, _ = run(LAS_ROWS, "las")
    assert starts(jobs) == {"A": 0, "C": 3000, "B": 3100}
    assert ends(jobs)["A"] == 3200 + 40 + 2000
    assert jobs.loc["A", "preemptions"] == 1


def test_las_starvation_guard_promotes_a_waiting_job():
    # starve_time=50: A, requeued at 3000, is due for promotion at 3050; the next pass is at
    # 3100 (C ends): A goes back to queue 0 with its service counted from zero, and is older
    # than B, so A resumes at 3100 (ends 3100 + 40 + 2000 = 5140) and B waits until then. A's
    # new service reaches the threshold only after 2,250 s more, past its end.
    jobs, _ = run(LAS_ROWS, "las", options={"starve_time": 50.0, "starve_multiple": 0.0})
    assert starts(jobs) == {"A": 0, "C": 3000, "B": 5140}
    assert ends(jobs)["A"] == 5140


def test_las_thresholds_are_configurable():
    # With thresholds (100000,) A stays in queue 0 all along: nobody is preempted and the jobs
    # run in submission order.
    jobs, summary = run(LAS_ROWS, "las", options={"thresholds": [100000.0]})
    assert summary["preemptions"] == 0
    assert starts(jobs) == {"A": 0, "C": 5000, "B": 5100}


def test_las_rejects_unordered_thresholds():
    with pytest.raises(ConfigError):
        SCHEDULERS.create("las", {"thresholds": [5.0, 1.0]})


# ---------------------------------------------------------------------------- Acme reservation

def test_reservation_preempts_borrowers_for_pretraining_and_runs_eval_last():
    # Two nodes, Pretrain reserves 50% of the nodes (1 node): 1 shared node. S1 and S2 (SFT,
    # best effort, 8 GPUs) start at 0 on nodes 0 and 1: unreserved jobs occupy 2 nodes, one of
    # them borrowed. E (Eval, 1 GPU) at 1 would exceed the shared node: it waits. P (Pretrain,
    # 8 GPUs) at 10 is within its quota and does not fit: the borrower started last (S2, the
    # higher index on a tie) is preempted and P runs 10-110. At 110 S2 (class 1) restarts
    # before E (class 2): 110 + 40 + 990 = 1140. E still may not start while S2 occupies a
    # second node (borrowed) and starts when S2 ends, at 1140.
    rows = [("S1", "u1", "SFT", 0, 1000, 8, 1), ("S2", "u1", "SFT", 0, 1000, 8, 1),
            ("E", "u2", "Eval", 1, 10, 1, 1), ("P", "u3", "Pretrain", 10, 100, 8, 1)]
    jobs, summary = run(rows, "acme_reservation", nodes=2,
                        options={"quotas": {"Pretrain": 0.5}})
    assert starts(jobs) == {"S1": 0, "S2": 0, "E": 1140, "P": 10}
    assert ends(jobs)["S2"] == 1140
    assert summary["preemptions"] == 1 and jobs.loc["S2", "preemptions"] == 1
    assert jobs.loc["S2", "lost_gpu_time"] == 8 * 40


def test_reservation_caps_pretraining_at_its_quota():
    # Two nodes, Pretrain quota 1 node (8 GPUs). P1 runs 0-100; P2 (8 GPUs) at 1 would exceed
    # the quota although node 1 is idle, so it waits until 100. E (Eval, 1 GPU) at 2 keeps
    # unreserved jobs within the 1 shared node: it starts at once.
    rows = [("P1", "u", "Pretrain", 0, 100, 8, 1), ("P2", "u", "Pretrain", 1, 50, 8, 1),
            ("E", "u", "Eval", 2, 10, 1, 1)]
    jobs, _ = run(rows, "acme_reservation", nodes=2, options={"quotas": {"Pretrain": 0.5}})
    assert starts(jobs) == {"P1": 0, "P2": 100, "E": 2}


def test_reservation_priority_classes_are_configuration():
    # One node, no quota. A (Other) runs 0-100; E (Eval, earlier) and S (SFT) wait. Default
    # classes put SFT (1) before Eval (2): S 100-110, E 110-120. Mapping Eval to class 0
    # reverses them.
    rows = [("A", "u", "Other", 0, 100, 8, 1), ("E", "u", "Eval", 1, 10, 8, 1),
            ("S", "u", "SFT", 2, 10, 8, 1)]
    jobs, _ = run(rows, "acme_reservation", options={"quotas": {}})
    assert starts(jobs) == {"A": 0, "E": 110, "S": 100}
    jobs, _ = run(rows, "acme_reservation",
                  options={"quotas": {}, "priorities": {"Eval": 0}})
    assert starts(jobs) == {"A": 0, "E": 100, "S": 110}


def test_reservation_rejects_bad_quotas():
    with pytest.raises(ConfigError):
        SCHEDULERS.create("acme_reservation", {"quotas": {"Pretrain": 0.7, "SFT": 0.5},
                                               "borrowers": ["MLLM"]})
    with pytest.raises(ConfigError):
        SCHEDULERS.create("acme_reservation", {"quotas": {"SFT": 0.5}})


# ---------------------------------------------------------------------------- registry

def test_registry_names_as_users_type_them():
    names = set(SCHEDULERS.names())
    assert {"fifo", "easy_backfill", "sjf", "srtf", "qssf", "las",
            "acme_reservation"} <= names
    assert SCHEDULERS.canonical("tiresias") == "las"
    assert SCHEDULERS.canonical("easy") == "easy_backfill"


def test_every_policy_module_cites_its_source():
    for name in SCHEDULERS.names():
        doc = __import__(SCHEDULERS.get(name).__module__, fromlist=["_"]).__doc__ or ""
        assert len(doc) > 200, name


def test_unknown_predictor_lists_the_valid_ones():
    with pytest.raises(Exception, match="oracle"):
        SCHEDULERS.create("sjf", {"predictor": "crystal_ball"})


def test_prediction_fields_are_empty_without_a_predictor():
    _, summary = run([("A", "u", "SFT", 0, 10, 1, 1)], "fifo")
    assert "prediction_mae" not in summary or math.isnan(summary["prediction_mae"])
