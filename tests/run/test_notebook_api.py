"""The Python API as a notebook uses it: a progress bar on request, figures, tables to display."""

from __future__ import annotations

import acmesim
from acmesim.run import simulate
from acmesim.synth import sample_trace_path


def small_jobs():
    return acmesim.load_trace(sample_trace_path()).head(400)


def test_progress_true_draws_a_bar_even_off_a_terminal(capsys):
    result = simulate(small_jobs(), cluster="small", progress=True, oversize_jobs="skip")
    assert result.summary["simulated_jobs"] > 0
    drawn = capsys.readouterr()
    assert "of the trace span" in drawn.out + drawn.err
    assert "100%" in drawn.out + drawn.err


def test_progress_false_draws_nothing(capsys):
    simulate(small_jobs(), cluster="small", progress=False, oversize_jobs="skip")
    drawn = capsys.readouterr()
    assert "trace span" not in drawn.out + drawn.err


def test_the_result_displays_its_tables_as_dataframes():
    import pandas as pd

    jobs = small_jobs()
    result = simulate(jobs, cluster="small", oversize_jobs="skip")
    assert isinstance(result.summary_frame, pd.DataFrame)
    assert result.summary_frame.loc["simulated_jobs", "value"] == len(result.jobs)
    by_type = result.by_type
    assert by_type["jobs"].sum() == len(result.jobs)
    evals = result.jobs[result.jobs["type"] == "Eval"]
    assert by_type.loc["Eval", "queue_mean"] == evals["queue_delay"].mean()
    html = result._repr_html_()
    assert "<table" in html and "queue_mean" in html and "job_id" in html


def test_the_documented_notebook_example_runs_and_draws_its_figures(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from png_checks import assert_png

    script = Path(__file__).resolve().parents[2] / "docs" / "notebook_example.py"
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "figs")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "100% of the trace span" in done.stdout + done.stderr
    assert "Pretrain" in done.stdout and "queue_mean" in done.stdout
    for name in ("type_cdfs.png", "queue_delay_mean.png"):
        assert_png(tmp_path / "figs" / name)
