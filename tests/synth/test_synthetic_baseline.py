"""Recorded starts of synthetic traces come from the baseline ``acme`` (``baseline.py``)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from acmesim.run.simulate import simulate
from acmesim.synth import generate_trace, get_profile
from acmesim.synth.baseline import (
    baseline_starts,
    end_from_submit,
    ranked_startup,
    replay_frame,
    settle_on_nodes,
)
from acmesim.synth.table import JobArrays

SEREN = get_profile("seren")
EPOCH = int(pd.Timestamp(SEREN.start).timestamp())
TYPES = [t.name for t in SEREN.types]


def arrays(rows: list[tuple[str, int, int, int, int]]) -> JobArrays:
    """Packed jobs from ``(type, gpus, submit, packed start, run time)`` rows."""
    n = len(rows)
    column = np.array([r[1:] for r in rows], dtype=np.int64).T
    gpus, submit, start, run = column
    return JobArrays(
        type_code=np.array([TYPES.index(r[0]) for r in rows], dtype=np.int16), gpus=gpus,
        submit=submit, work=run, state=np.zeros(n, dtype=np.int8),
        user=np.arange(n, dtype=np.int64), klass=np.ones(n, dtype=np.int8),
        successor=np.full(n, -1, dtype=np.int64), gap=np.zeros(n, dtype=np.int64),
        start=start, end=start + run)


def acme_replay(jobs: JobArrays, seed: int) -> pd.DataFrame:
    """The jobs table of replaying ``jobs`` under acme on Seren (the oracle)."""
    frame = replay_frame(SEREN, jobs, np.arange(len(jobs.gpus)), EPOCH)
    return simulate(frame, "seren", "acme", seed=seed).jobs.set_index("job_id")


def test_recorded_queue_is_the_baseline_queue_rounded_up_and_run_time_is_kept():
    # a pretraining job on the whole cluster (286 x 8 GPUs), an SFT job waiting for it, a debug job
    jobs = arrays([("Pretrain", 2288, 0, 0, 100), ("SFT", 8, 10, 10, 50),
                   ("Debug", 1, 20, 20, 30)])
    out = baseline_starts(SEREN, jobs, seed=5, start_epoch=EPOCH, span=1000)
    sim = acme_replay(jobs, seed=5)
    expected = np.ceil(sim.loc[["0", "1", "2"], "queue_delay"].to_numpy() - 1e-6)
    assert (out.start - out.submit).tolist() == expected.astype(int).tolist()
    assert (out.end - out.start).tolist() == [100, 50, 30]
    assert out.start[1] >= out.end[0]  # the SFT job waited for the whole cluster
    assert out.submit.tolist() == [0, 10, 20]


def test_a_preempted_job_records_its_last_run_submitted_at_its_requeue():
    # an SFT job (best-effort) on one node from t = 0; a whole-cluster pretraining run at
    # t = 10 preempts it there (acme's reclaim); the SFT job restarts when pretraining ends.
    # The trace keeps its last attempt, as Slurm does: submitted at the requeue (t = 10, not
    # 0), started when that run got its GPUs, so its queue excludes its first run.
    jobs = arrays([("SFT", 8, 0, 0, 100), ("Pretrain", 2288, 10, 10, 50)])
    out = baseline_starts(SEREN, jobs, seed=5, start_epoch=EPOCH, span=1000)
    sim = acme_replay(jobs, seed=5)
    assert sim.loc["0", "preemptions"] == 1
    assert out.submit.tolist() == [10, 10]
    assert out.start[0] >= out.end[1]  # the last run began once pretraining gave the nodes back
    assert out.start[0] - out.submit[0] < out.start[0] - jobs.submit[0]


def test_a_job_never_submitted_by_the_packer_is_left_alone():
    jobs = arrays([("SFT", 8, 0, 0, 10), ("SFT", 8, 5, -1, 10)])
    jobs.end[1] = -1
    out = baseline_starts(SEREN, jobs, seed=0, start_epoch=EPOCH, span=1000)
    assert out.start[1] == -1 and out.end[1] == -1 and out.start[0] >= 1


def test_a_kalos_job_started_late_keeps_its_sampled_end_submit_duration():
    # Kalos duration = end - submit. Packed (sampled) ends 100, 50 and 30 s after a submit at 0,
    # packed starts 10, 10, 10 (runs 90, 40, 20). The replay starts them at 20, 5 and 40 s, so
    # its ends are 20 + 90 = 110, 5 + 40 = 45 and 40 + 20 = 60. Recorded: job 0 keeps its end
    # 100 (run 80); job 1 started earlier, keeps the replay's 45 (never past the replay's end);
    # job 2 started after its sampled end, runs min_run = 1 s: 41.
    ends = end_from_submit(np.array([100, 50, 30]), np.array([20, 5, 40]),
                           np.array([110, 45, 60]), min_run=1)
    assert ends.tolist() == [100, 45, 41]


def test_kalos_start_ups_follow_the_sampled_durations_by_rank_within_each_type():
    # Kalos start-up 4 + 13 e^(2.2489 z). Three Eval jobs of sampled durations 100, 10, 50 s
    # rank 3rd, 1st, 2nd of 3: quantiles 5/6, 1/6, 1/2, z = 0.96742, -0.96742, 0 ->
    # 118.50, 5.476, 17 s. The 100-s job must still run min_run = 1 s: capped at 99. A lone
    # Pretrain job (type 1) sits at its type's median, 17 s.
    kalos = get_profile("kalos")
    assert kalos.queue.latency_by_rank and not SEREN.queue.latency_by_rank
    startups = ranked_startup(kalos, np.array([100, 10, 50, 400]), np.array([0, 0, 0, 1]))
    assert startups.tolist() == [99, 5, 17, 17]


def test_kalos_holds_only_jobs_whose_sampled_duration_has_room_for_the_hold():
    # Kalos holds 1.5 % of Other's GPU jobs for 2^15-2^17 s (cluster preset). 1,000 short
    # Other jobs (end - submit 100 s) have no room: none is held, each keeps its sampled
    # duration. 1,000 long ones (200,000 s) have room for any hold: Other's share among them is
    # raised to 3 %, so about 30 are held (binomial, sd 5.4), each at least 2^15 s.
    kalos = get_profile("kalos")
    names = [t.name for t in kalos.types]
    n = 2000
    run = np.where(np.arange(n) < n // 2, 100, 200_000)
    submit = np.arange(n, dtype=np.int64)
    jobs = JobArrays(
        type_code=np.full(n, names.index("Other"), dtype=np.int16),
        gpus=np.ones(n, dtype=np.int64), submit=submit, work=run,
        state=np.zeros(n, dtype=np.int8), user=np.arange(n, dtype=np.int64),
        klass=np.ones(n, dtype=np.int8), successor=np.full(n, -1, dtype=np.int64),
        gap=np.zeros(n, dtype=np.int64), start=submit.copy(), end=submit + run)
    startups = ranked_startup(kalos, run, jobs.type_code)
    epoch = int(pd.Timestamp(kalos.start).timestamp())
    out = baseline_starts(kalos, jobs, seed=7, start_epoch=epoch, span=10**6,
                          startups=startups)
    short, long = slice(0, n // 2), slice(n // 2, n)
    assert ((out.end - out.submit)[short] == 100).all()
    assert ((out.start - out.submit)[short] < 2**15).all()
    held = (out.start - out.submit)[long] >= 2**15
    assert 12 <= held.sum() <= 48
    assert ((out.end - out.submit)[long] == 200_000).all()


def test_settling_moves_a_job_that_does_not_fit_the_nodes_to_where_it_fits():
    # two whole-cluster jobs overlap by 50 s: the second can only start when the first ends
    jobs = arrays([("Pretrain", 2288, 0, 0, 100), ("Pretrain", 2288, 0, 50, 20)])
    out = settle_on_nodes(SEREN, jobs, np.arange(2), EPOCH)
    assert out.start.tolist() == [0, 100] and out.end.tolist() == [100, 120]


@pytest.mark.parametrize(("profile", "days", "seed"), [("seren", 2, 3), ("kalos", 6, 3)])
def test_a_recorded_replay_reproduces_a_synthetic_trace_exactly(profile, days, seed):
    jobs = generate_trace(profile, days, seed)
    result = simulate(jobs, profile, "fifo", mode="recorded")
    replayed = result.jobs
    assert result.summary["recorded_late_jobs"] == 0
    assert (replayed["start_time"] == replayed["recorded_start_time"]).all()
    assert (replayed["run_time"] == replayed["recorded_run_time"]).all()


def test_the_engine_does_not_import_the_generator():
    code = ("import sys, acmesim.sim, acmesim.run.simulate; "
            "print(any(m.startswith('acmesim.synth') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"  # so baseline.py may import sim/: no cycle
