"""``acmesim plot`` and ``plot_trace``: the figures exist and are valid, non-empty PNGs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_standins import fake_config_data, fake_run_replay
from png_checks import assert_png

from acmesim.analysis.plots import cdf_points, plot_trace
from acmesim.cli import main
from acmesim.core.config import Choice, ReplayConfig
from acmesim.results.completion import mark_complete


def fake_run(run_dir: Path, summary_fields: dict | None = None, **changes) -> Path:
    """A complete stand-in run; ``summary_fields`` rewrite its summary (and its record)."""
    fake_run_replay.calls = []
    run_dir.mkdir(parents=True)
    config = dataclasses.replace(ReplayConfig(), **changes)
    fake_run_replay(config, run_dir)
    if summary_fields:
        summary = pd.read_csv(run_dir / "summary.csv").assign(**summary_fields)
        summary.to_csv(run_dir / "summary.csv", index=False)
        mark_complete(run_dir, fake_config_data(config),
                      [run_dir / name for name in ("jobs.csv", "utilization.csv", "summary.csv",
                                                   "config.yaml")])
    return run_dir


def test_plot_a_run(tmp_path, capsys):
    run = fake_run(tmp_path / "run")
    assert main(["plot", str(run)]) == 0
    printed = [Path(line) for line in capsys.readouterr().out.split()]
    names = {p.name for p in printed}
    assert names == {"queue_delay_cdf.png", "jct_cdf.png", "type_cdfs.png", "utilization.png"}
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
    figures = plot_trace(trace_jobs(), tmp_path / "trace")
    assert list(figures) == ["trace_type_shares.png", "trace_state_shares.png",
                             "trace_gpu_demand.png", "trace_durations.png"]
    for name in figures:
        assert_png(tmp_path / "trace" / name)


def test_plot_trace_without_gpu_jobs_is_a_clean_error(tmp_path):
    jobs = trace_jobs().assign(gpu_num=0)
    from acmesim.core.errors import AcmesimError

    with pytest.raises(AcmesimError, match="no GPU jobs"):
        plot_trace(jobs, tmp_path)


def test_cdf_points_are_an_empirical_cdf():
    x, y = cdf_points([3.0, 1.0, np.nan, 2.0, 2.0])
    assert x.tolist() == [1.0, 2.0, 2.0, 3.0]
    assert y.tolist() == [25.0, 50.0, 75.0, 100.0]


def test_bars_of_very_different_durations_use_a_log_axis_with_named_time_ticks():
    from acmesim.analysis.plots import plot_bars

    means = pd.Series([25 * 60.0, 37.8 * 86400], index=["a", "b"])
    fig = plot_bars(means, pd.Series([np.nan, np.nan], index=means.index), "jct_mean", "s")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and "log scale" in ax.get_xlabel()
    assert [t.get_text() for t in ax.texts] == ["25.0 min", "37.8 d"]
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["10 min", "1 h", "1 d", "10 d", "100 d"]
    widths = [bar.get_width() for bar in ax.patches]
    assert widths == pytest.approx([25 * 60.0, 37.8 * 86400])


def test_bars_of_similar_values_stay_linear_in_their_own_unit():
    from acmesim.analysis.plots import plot_bars

    means = pd.Series([0.5, 0.75], index=["a", "b"])
    fig = plot_bars(means, pd.Series([0.0, 0.1], index=means.index), "gpu_utilization",
                    "fraction")
    ax = fig.axes[0]
    assert ax.get_xscale() == "linear"
    assert "(%)" in ax.get_xlabel()
    assert [t.get_text() for t in ax.texts] == ["50", "75"]


def test_a_sweep_draws_no_chart_for_a_metric_zero_in_every_run(tmp_path):
    from acmesim.analysis.plots import plot_sweep

    sweep = tmp_path / "sweep"
    for i, scheduler in enumerate(["fifo", "qssf"]):
        run = fake_run(sweep / str(i), {"failures": 0, "preemptions": [0, 3][i]},
                       scheduler=Choice(scheduler))
        (run / ".hydra").mkdir()
        (run / ".hydra" / "overrides.yaml").write_text(f"- scheduler={scheduler}\n")
    figures = plot_sweep(sweep)  # no out_dir: figures only, nothing written
    assert "sweep_failures.png" not in figures
    assert "sweep_preemptions.png" in figures
    assert "sweep_queue_delay_by_type.png" in figures
    assert not (sweep / "figures").exists()
    panels = [ax for ax in figures["sweep_queue_delay_by_type.png"].axes if ax.get_visible()]
    jobs = pd.read_csv(sweep / "0" / "jobs.csv")
    assert sorted(ax.get_title() for ax in panels) == sorted(jobs["type"].unique())


def test_bars_of_similar_durations_use_the_unit_of_the_largest():
    from acmesim.analysis.plots import plot_bars

    means = pd.Series([3 * 86400.0, 5 * 86400.0], index=["a", "b"])
    ax = plot_bars(means, means * 0, "makespan", "s").axes[0]
    assert ax.get_xscale() == "linear" and "(d)" in ax.get_xlabel()
    assert [bar.get_width() for bar in ax.patches] == pytest.approx([3.0, 5.0])
