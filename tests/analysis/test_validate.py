"""``acmesim validate``: recorded against simulated queueing, on tiny traces with known answers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from factories import frame, job
from png_checks import assert_png

from acmesim.analysis import fidelity as fid
from acmesim.cli import main
from acmesim.core.errors import ConfigError
from acmesim.trace.formats import write_acme_csv


def test_ks_distance_and_ratios_by_hand():
    a = np.array([0.0, 0.0, 0.0, 0.0])
    b = np.array([0.0, 10.0, 20.0, 30.0])
    assert fid.ks_distance(a, b) == 0.75  # at 0: F_a = 1, F_b = 1/4
    assert fid.ks_distance(b, b) == 0.0
    assert fid.ratio(0.0, 0.4) == 1.0  # both resolve to "<= 1 s"
    assert fid.ratio(40.0, 10.0) == 4.0


def test_type_verdicts_use_the_tolerances():
    recorded = np.array([0.0] * 50 + [100.0] * 50)
    close = np.array([0.0] * 45 + [180.0] * 55)  # 45 % <= 1 s (5 points off), p90 x1.8
    far = np.array([0.0] * 30 + [300.0] * 70)  # 20 points off, p90 x3
    tol = fid.Tolerances()
    assert fid.type_fidelity("Eval", recorded, close, tol).passed
    row = fid.type_fidelity("Eval", recorded, far, tol)
    assert not row.passed
    assert row.ratios[90] == pytest.approx(3.0)
    assert any("% <= 1 s: 30.0 vs 50.0" in f for f in row.failures)


def test_p90_ordering():
    good = {"Eval": 300, "SFT": 170, "Pretrain": 26, "MLLM": 10, "Other": 15, "Debug": 2}
    assert fid.p90_ordering(good) is True
    assert fid.p90_ordering({**good, "MLLM": 200}) is False
    assert fid.p90_ordering({k: v for k, v in good.items() if k != "MLLM"}) is None


@pytest.fixture
def tiny_trace(tmp_path):
    # Five whole-cluster (32-GPU) Eval jobs of 100 s submitted at once on 'tiny' (4 x 8 GPUs).
    # The trace recorded each starting at once; FIFO must run them one after the other:
    # simulated queue delays 0, 100, 200, 300, 400 s.
    rows = [job(0, 100, 32, nodes=4, type="Eval", user="u1") for _ in range(5)]
    path = tmp_path / "tiny.csv"
    write_acme_csv(frame(rows), path, "seren")
    return path


def test_validate_on_a_tiny_trace_with_known_answers(tiny_trace, capsys, tmp_path):
    code = main(["validate", str(tiny_trace), "--scheduler", "fifo", "--cluster", "tiny",
                 "--json", "--plot", str(tmp_path / "figs")])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    (row,) = data["types"]
    assert row["type"] == "Eval" and row["jobs"] == 5
    assert row["recorded"] == {"p50": 0.0, "p75": 0.0, "p90": 0.0, "p95": 0.0, "p99": 0.0}
    # numpy's linear percentiles of 0, 100, 200, 300, 400
    assert row["simulated"] == {"p50": 200.0, "p75": 300.0, "p90": 360.0, "p95": 380.0,
                                "p99": 396.0}
    assert (row["recorded_le1"], row["simulated_le1"]) == (100.0, 20.0)
    assert row["ratios"]["p90"] == 360.0 and row["ks"] == 0.8
    assert not data["passed"] and data["p90_ordering"] is None
    assert data["cluster"]["queue_mean"]["simulated"] == 200.0
    assert data["cluster"]["jct_mean"] == {"recorded": 100.0, "simulated": 300.0, "ratio": 3.0}
    assert len(data["figures"]) == 1
    assert_png(data["figures"][0])


def test_jobs_of_the_warm_up_are_replayed_but_not_compared(tmp_path, capsys):
    # The trace's first Eval job waited 500 s for a job submitted before the trace began (not
    # in it); 19 more, 500 s apart from t = 2,000 s, started at once. Longest run 1,000 s, span
    # 11,000 s: the warm-up is min(1,000, 11,000 / 2) = 1,000 s, so the first job is replayed
    # (FIFO on an empty 'tiny' starts it at once) but not compared, and every check passes.
    # Compared too, it is recorded at 500 s and simulated at 0 s: recorded p99 = 0.81 x 500 =
    # 405 s (linear percentile of 20 values) against 0 s fails.
    rows = [job(0, 1000, 32, nodes=4, start=500, type="Eval")]
    rows += [job(2000 + 500 * k, 100, 8, type="Eval") for k in range(19)]
    path = tmp_path / "warm.csv"
    write_acme_csv(frame(rows), path, "seren")
    base = ["validate", str(path), "--scheduler", "fifo", "--cluster", "tiny", "--json"]
    assert main(base) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["warmup_s"] == 1000.0 and data["compared_jobs"] == 19
    assert data["passed"] and data["types"][0]["recorded"]["p99"] == 0.0
    assert main([*base, "--warmup", "0"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["compared_jobs"] == 20
    assert data["types"][0]["recorded"]["p99"] == pytest.approx(405.0)
    assert not data["passed"]


def test_validate_text_and_strict_exit(tiny_trace, capsys):
    assert main(["validate", str(tiny_trace), "--scheduler", "fifo", "--cluster", "tiny",
                 "--strict"]) == 1
    text = capsys.readouterr().out
    assert "Eval" in text and "FAIL" in text and "360" in text


def test_validate_needs_a_cluster_for_a_foreign_format():
    from acmesim.cli.commands.validate import trace_cluster

    assert trace_cluster(None, "kalos") == "kalos"
    assert trace_cluster("tiny", "philly") == "tiny"
    with pytest.raises(ConfigError, match="give --cluster"):
        trace_cluster(None, "philly")


def test_published_comparison_uses_the_seren_table_and_lower_bounds():
    import pandas as pd

    # Other: 73 % at 0 s, the rest at 20,000 s: p90, p95 far above 15 / 68 s (fail), p99
    # 20,000 s >= half of the lower bound 32,768 s (pass); % <= 1 s 73 vs 72.7 (pass).
    queue = np.array([0.0] * 73 + [20000.0] * 27)
    sim = pd.DataFrame({"type": "Other", "queue": queue, "jct": queue + 100})
    result = fid.published_fidelity(sim, "seren")
    other = next(row for row in result.types if row.type == "Other")
    assert other.recorded[99] == 32768.0 and other.recorded_le1 == 72.7
    assert [f.split(":")[0] for f in other.failures] == ["Other p90", "Other p95"]
    assert result.cluster["queue_mean"]["recorded"] == pytest.approx(445.984)
    assert any(f.startswith("mean queue") for f in result.failures)
    kalos = fid.published_fidelity(sim, "kalos")
    assert kalos.types == [] and kalos.cluster["queue_median"]["recorded"] == 17.0


def test_a_p99_of_few_jobs_passes_inside_its_sampling_band_and_of_many_does_not():
    # 300 jobs each: recorded 4 held at 40,000 s (p99 at the 297th value, 40,000 s), simulated 2
    # (p99 10 s): x4,000 off, but with 300 jobs even the longest may lie below the true p99
    # (0.99^300 > 0.025), so the simulated band has no upper end and holds 40,000 s: a pass,
    # marked. The same shares of 30,000 jobs are told apart (both bands are single values).
    def queues(held: int, n: int) -> np.ndarray:
        return np.array([10.0] * (n - held) + [40000.0] * held)

    few = fid.type_fidelity("Other", queues(4, 300), queues(2, 300), fid.Tolerances())
    assert few.ratios[99] == pytest.approx(10 / 40000)
    assert few.passed and few.by_sampling == (99,)
    many = fid.type_fidelity("Other", queues(400, 30000), queues(200, 30000), fid.Tolerances())
    assert not many.passed and many.by_sampling == ()
    assert [f.split(":")[0] for f in many.failures] == ["Other p99"]


def test_a_trace_s_recorded_p99_is_a_value_checked_both_ways():
    # Only the *published* Other p99 is a lower bound: a trace's recorded p99 is a value, so
    # a simulated p99 four times it fails (30,000 jobs: no sampling band reaches across)
    recorded = np.array([10.0] * 29500 + [1000.0] * 500)
    simulated = np.array([10.0] * 29500 + [4000.0] * 500)
    row = fid.type_fidelity("Other", recorded, simulated, fid.Tolerances())
    assert row.ratios[99] == pytest.approx(4.0)
    assert [f.split(":")[0] for f in row.failures] == ["Other p99"]
    assert "vs 1000 s" in row.failures[0]  # no ">": not a bound


def test_the_ks_distance_compares_delays_at_the_traces_resolution():
    # a trace records whole seconds (1, 1, 2, 30 s); a replay of the same jobs gives fractional
    # delays (0.3 s start-ups, 1.4 s, 29.2 s) that the trace rounds up to exactly those; and
    # everything up to 1 s is one class, as in the ratios: KS 0, not the 0.5 of the raw values
    recorded = np.array([1.0, 1.0, 2.0, 30.0])
    simulated = np.array([0.3, 0.3, 1.4, 29.2])
    assert fid.ks_distance(recorded, simulated) == 0.5
    assert fid.resolved(simulated).tolist() == [1.0, 1.0, 2.0, 30.0]
    assert fid.type_fidelity("Eval", recorded, simulated, fid.Tolerances()).ks == 0.0


def test_the_text_table_keeps_wide_cells_apart():
    # a p99 cell of "15,005 / 11,003" fills its 15 characters: the cell before it must not run
    # into it ("135 / 7115,005 / 11,003" before)
    from acmesim.cli.commands.validate import render

    recorded = np.array([0.0] * 9000 + [135.0] * 501 + [15005.0] * 499)  # p95 135, p99 15,005
    simulated = np.array([0.0] * 9000 + [71.0] * 501 + [11003.0] * 499)
    row = fid.type_fidelity("MLLM", recorded, simulated, fid.Tolerances())
    cluster = {k: fid._pair(1.0, 1.0) for k in
               ("queue_mean", "queue_median", "jct_mean", "allocated_share")}
    result = fid.Fidelity([row], cluster, None, ())
    run = {"trace": "t.csv", "gpu_jobs": 10000, "cluster": "seren", "scheduler": "acme",
           "seed": 0, "compared_jobs": 10000, "warmup_s": 0.0}
    line = next(x for x in render(run, result).splitlines() if x.startswith("MLLM"))
    assert "135 / 71 15,005 / 11,003" in line
