"""``trace.errors=drop`` from the command line: the dropped rows are printed and recorded."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from cli_trace import write_tiny_trace

from acmesim.cli import main
from acmesim.core.config import Choice, ReplayConfig
from acmesim.run.replay import run_replay


def corrupt(path: Path) -> Path:
    """Break lines 3, 5 and 7 of the eight-job trace: two missing ends, one negative count."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for line in (3, 7):
        fields = lines[line - 1].split(",")
        fields[9] = ""  # end_time
        lines[line - 1] = ",".join(fields)
    fields = lines[4].split(",")
    fields[3] = "-8"  # gpu_num
    lines[4] = ",".join(fields)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_drop_mode_prints_and_records_the_counts_per_reason(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    trace = corrupt(write_tiny_trace(tmp_path / "bad.csv"))
    code = main(["replay", "progress=false", f"trace.path={trace.name}", "trace.errors=drop",
                 "cluster=tiny", "hydra.run.dir=run"])
    assert code == 0
    out = capsys.readouterr().out
    assert "jobs             5" in out
    assert "rows dropped     3 (missing value: 2; negative count: 1)" in out
    summary = pd.read_csv(Path("run", "summary.csv"), keep_default_na=False)
    assert summary.loc[0, "input_jobs"] == 5
    assert summary.loc[0, "rows_dropped"] == 3
    assert summary.loc[0, "rows_dropped_by_reason"] == "missing value: 2; negative count: 1"


def test_a_clean_or_generated_trace_records_no_dropped_rows(tmp_path, capsys):
    trace = write_tiny_trace(tmp_path / "tiny.csv")
    config = ReplayConfig(trace=Choice("file", {"path": str(trace), "errors": "drop"}),
                          cluster=Choice("tiny", {}), progress=False)
    result = run_replay(config, tmp_path / "run")
    assert result.error is None
    assert (result.summary["rows_dropped"], result.summary["rows_dropped_by_reason"]) == (0, "")
    synthetic = ReplayConfig(trace=Choice("synthetic", {"days": 0.2}), cluster=Choice("tiny", {}),
                             oversize_jobs="skip", progress=False)
    result = run_replay(synthetic, tmp_path / "synthetic")
    assert result.error is None and result.summary["rows_dropped"] == 0
