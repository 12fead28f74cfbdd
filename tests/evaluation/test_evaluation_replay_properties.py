"""Evaluation requests in a cluster replay: invariants on random traces, files, the CLI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_trace import write_tiny_trace
from factories import cluster, frame, job
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.cli import main
from acmesim.core.config import Choice, ReplayConfig
from acmesim.evaluation.metric_queue import fifo_starts
from acmesim.run import run_replay, simulate

NODES, GPUS = 2, 8


def work(r: float) -> float:
    """Preprocessing + inference seconds of a trace Eval job of r s on <= 8 GPUs (35.84 s load)."""
    return max(0.0, 0.295 * r - 35.84) + 0.515 * r


def load(g: int) -> float:
    """Decoupled load of a g x 7B checkpoint: prefetch through 25 Gb/s + 16 GB/s per GPU copy."""
    return 14e9 * g / (25e9 / 8) + 14e9 / 16e9


burst = st.tuples(st.sampled_from(["u1", "u2"]), st.integers(0, 300),
                  st.sampled_from([1, 2, 4, 8]),
                  st.lists(st.tuples(st.integers(0, 3000),
                                     st.sampled_from(["COMPLETED", "FAILED"])),
                           min_size=1, max_size=5))
other = st.tuples(st.integers(0, 300), st.integers(1, 2000), st.sampled_from([1, 8, 16]),
                  st.sampled_from(["SFT", "Pretrain", "Other"]))


@st.composite
def traces(draw) -> pd.DataFrame:
    rows = []
    for user, submit, gpus, jobs in draw(st.lists(burst, min_size=1, max_size=4)):
        rows += [job(submit, run, gpus, type="Eval", user=user, state=state)
                 for run, state in jobs]
    rows += [job(submit, run, gpus, nodes=max(1, gpus // GPUS), type=kind)
             for submit, run, gpus, kind in draw(st.lists(other, max_size=5))]
    order = draw(st.permutations(range(len(rows))))
    return frame([rows[i] for i in order])


def replay(jobs: pd.DataFrame, mode: str):
    result = simulate(jobs, cluster(NODES), eval=mode, audit=True)
    tables = {schema.file_name: table for schema, table in result.tables}
    return result, tables["eval_requests.csv"], tables["eval_jobs.csv"]


def peak_gpus(jobs: pd.DataFrame) -> int:
    """Most GPUs held at once in a jobs table (ends before starts at equal times)."""
    events = sorted([(e, 0, -g) for e, g in zip(jobs.end_time, jobs.gpu_num, strict=True)]
                    + [(s, 1, g) for s, g in zip(jobs.start_time, jobs.gpu_num, strict=True)])
    return int(np.max(np.cumsum([delta for _, _, delta in events]), initial=0))


def check_accounting(trace: pd.DataFrame, result, requests, datasets) -> None:
    """Every Eval job in exactly one request, other jobs untouched, GPUs never exceeded."""
    evals = trace[trace.type == "Eval"]
    assert sorted(datasets.job_id) == sorted(evals.job_id)
    assert datasets.request_id.isin(requests.request_id).all()
    assert requests.jobs.sum() == len(evals) and requests.request_id.is_unique
    source = evals.set_index("job_id")
    for request_id, members in datasets.groupby("request_id"):
        rows = source.loc[members.job_id]
        assert rows.user.nunique() == rows.gpu_num.nunique() == 1
        assert rows.submit_time.dt.floor("s").nunique() == 1
        assert request_id in set(members.job_id)
    others = trace[trace.type != "Eval"]
    assert sorted(result.jobs[result.jobs.type != "Eval"].job_id) == sorted(others.job_id)
    assert peak_gpus(result.jobs) <= NODES * GPUS
    assert (requests.queue_delay >= 0).all() and (requests.makespan >= requests.queue_delay).all()
    assert (datasets.result_time >= datasets.predictions_end).all()
    recorded = float((evals.run_time * evals.gpu_num).sum())
    assert result.summary["eval_recorded_gpu_time"] == pytest.approx(recorded)
    eval_rows = result.jobs[result.jobs.type == "Eval"]
    held = float((eval_rows.run_time * eval_rows.gpu_num).sum())
    assert result.summary["eval_gpu_time"] == pytest.approx(held)


@settings(max_examples=25, deadline=None)
@given(traces())
def test_coupled_replay_accounts_for_every_eval_job(trace):
    result, requests, datasets = replay(trace, "coupled")
    check_accounting(trace, result, requests, datasets)
    assert np.allclose(requests.gpu_time_held, requests.recorded_gpu_time)
    assert (datasets.trials == datasets.job_id).all() and (datasets.shards == 1).all()


@settings(max_examples=25, deadline=None)
@given(traces())
def test_decoupled_replay_conserves_work_and_accounts_for_every_eval_job(trace):
    result, requests, datasets = replay(trace, "decoupled")
    check_accounting(trace, result, requests, datasets)
    trial_ids = {t for listed in datasets.trials for t in listed.split(";")}
    assert trial_ids == set(result.jobs[result.jobs.type == "Eval"].job_id)
    runs = trace.set_index("job_id").run_time
    for r in requests.itertuples():
        members = datasets[datasets.request_id == r.request_id]
        expected = r.gpu_num * (r.trials * load(r.gpu_num)
                                + sum(work(runs[j]) for j in members.job_id))
        assert r.gpu_time_held == pytest.approx(expected, rel=1e-9, abs=1e-6)
        assert r.metric_cpu_time == pytest.approx(0.19 * runs[members.job_id].sum())
        assert r.makespan == pytest.approx(members.result_time.max() - r.submit_time)
    assert np.allclose(datasets.metric_end, datasets.metric_start + datasets.metric_s)
    assert (datasets.metric_start >= datasets.predictions_end - 1e-9).all()


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 30)), max_size=12),
       st.integers(1, 4))
def test_fifo_metric_queue_never_exceeds_its_slots_and_never_idles_a_waiting_job(jobs, slots):
    jobs = sorted(jobs)
    ready = [float(r) for r, _ in jobs]
    durations = [float(d) for _, d in jobs]
    starts = fifo_starts(ready, durations, slots)
    assert starts == sorted(starts) and all(s >= r for s, r in zip(starts, ready, strict=True))
    ends = [s + d for s, d in zip(starts, durations, strict=True)]
    for i, start in enumerate(starts):
        running = sum(1 for j in range(i) if starts[j] <= start < ends[j])
        assert running < slots
        if start > ready[i]:  # it waited: every slot was busy until it started
            assert sum(1 for j in range(i) if starts[j] < start <= ends[j]) >= slots


def test_run_replay_writes_eval_tables_deterministically_and_clears_them_later(tmp_path):
    jobs = frame([job(0, 1000, type="Eval", job_id="e1"), job(0, 200, type="Eval", job_id="e2"),
                  job(5, 300, gpus=8, type="Pretrain", job_id="p")])
    config = ReplayConfig(cluster=Choice("tiny"), eval=Choice("decoupled"), progress=False)
    first = run_replay(config, tmp_path / "a", jobs=jobs)
    second = run_replay(config, tmp_path / "b", jobs=jobs)
    assert first.error is None and second.error is None
    for name in ("eval_requests.csv", "eval_jobs.csv", "jobs.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    summary = pd.read_csv(tmp_path / "a" / "summary.csv")
    assert summary.loc[0, "eval_requests"] == 1
    assert summary.loc[0, "eval_recorded_gpu_time"] == 1200
    assert summary.loc[0, "eval_gpu_time"] < 1200
    plain = run_replay(ReplayConfig(cluster=Choice("tiny"), progress=False), tmp_path / "a",
                       jobs=jobs)
    assert plain.error is None
    assert not (tmp_path / "a" / "eval_requests.csv").exists()
    assert not (tmp_path / "a" / "eval_jobs.csv").exists()


def test_cli_selects_the_decoupled_evaluation_scheduler(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    trace = write_tiny_trace(tmp_path / "tiny.csv")
    code = main(["replay", "progress=false", f"trace.path={trace.name}", "cluster=tiny",
                 "scheduler=acme_reservation", "eval=decoupled", "eval.prior_packing=false",
                 "hydra.run.dir=run"])
    assert code == 0
    requests = pd.read_csv(Path("run", "eval_requests.csv"), dtype={"request_id": str})
    assert list(requests.request_id) == ["102", "106", "108"]
    jobs = pd.read_csv(Path("run", "jobs.csv"), dtype={"job_id": str})
    assert {"102/t000", "106/t000", "108/t000", "101"} <= set(jobs.job_id)
    summary = pd.read_csv(Path("run", "summary.csv"))
    assert summary.loc[0, "scheduler"] == "acme_reservation"
    assert summary.loc[0, "eval"] == "decoupled"
    assert summary.loc[0, "eval_recorded_gpu_time"] == 600 + 1800 * 2 + 30
