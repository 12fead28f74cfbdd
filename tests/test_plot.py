"""``acmesim plot`` and ``plot_trace``: the figures exist and are valid, non-empty PNGs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_standins import fake_run_replay
from png_checks import assert_png

from acmesim.analysis.plots import cdf_points, plot_trace
from acmesim.cli import main
from acmesim.config import Choice, ReplayConfig


def fake_run(run_dir: Path, **changes) -> Path:
    fake_run_replay.calls = []
    run_dir.mkdir(parents=True)
    fake_run_replay(dataclasses.replace(ReplayConfig(), **changes), run_dir)
    return run_dir


def test_plot_a_run(tmp_path, capsys):
    run = fake_run(tmp_path / "run")
    assert main(["plot", str(run)]) == 0
    printed = [Path(line) for line in capsys.readouterr().out.split()]
    names = {p.name for p in printed}
    assert names == {"queue_delay_cdf.png", "jct_cdf.png", "utilization.png"}
    for path in printed:
        assert path.parent == run / "figures"
        assert_png(path)


def test_plot_a_sweep_compares_configurations(tmp_path, capsys):
    sweep = tmp_path / "sweep"
    for i, (scheduler, seed) in enumerate([("fifo", 1), ("fifo", 2), ("qssf", 1)]):
        run = fake_run(sweep / str(i), scheduler=Choice(scheduler), seed=seed)
        (run / ".hydra").mkdir()
        (run / ".hydra" / "overrides.yaml").write_text(
            f"- scheduler={scheduler}\n- seed={seed}\n")
    out = tmp_path / "figs"
    assert main(["plot", str(sweep), "--out", str(out)]) == 0
    printed = [Path(line) for line in capsys.readouterr().out.split()]
    names = {p.name for p in printed}
    assert {"sweep_jct_mean.png", "sweep_gpu_utilization.png", "sweep_makespan.png",
            "sweep_lost_gpu_time.png", "sweep_jct_cdf.png"} <= names
    for path in printed:
        assert path.parent == out
        assert_png(path)


def test_plot_of_a_directory_without_results_is_a_clean_error(tmp_path, capsys):
    assert main(["plot", str(tmp_path)]) == 1
    assert "no complete runs" in capsys.readouterr().err


def trace_jobs(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    types = np.array(["Eval", "Pretrain", "SFT", "Debug"])
    states = np.array(["COMPLETED", "CANCELLED", "FAILED", "NODE_FAIL"])
    return pd.DataFrame({
        "job_id": [str(i) for i in range(n)],
        "type": types[rng.integers(0, 4, n)],
        "state": states[rng.integers(0, 4, n)],
        "gpu_num": rng.choice([0, 1, 8, 64, 256], n),
        "run_time": rng.exponential(3000, n).round(),
    })


def test_plot_trace_draws_the_papers_four_figures(tmp_path):
    paths = plot_trace(trace_jobs(), tmp_path / "trace")
    assert [p.name for p in paths] == ["trace_type_shares.png", "trace_state_shares.png",
                                       "trace_gpu_demand.png", "trace_durations.png"]
    for path in paths:
        assert_png(path)


def test_plot_trace_without_gpu_jobs_is_a_clean_error(tmp_path):
    jobs = trace_jobs().assign(gpu_num=0)
    from acmesim.core.errors import AcmesimError

    with pytest.raises(AcmesimError, match="no GPU jobs"):
        plot_trace(jobs, tmp_path)


def test_cdf_points_are_an_empirical_cdf():
    x, y = cdf_points([3.0, 1.0, np.nan, 2.0, 2.0])
    assert x.tolist() == [1.0, 2.0, 2.0, 3.0]
    assert y.tolist() == [25.0, 50.0, 75.0, 100.0]
