"""``acmesim collect``: one CSV row per run with its overrides, status and error."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from disk_full import disk_full

from acmesim.cli import main
from acmesim.cli.commands.collect import collect
from acmesim.results.completion import mark_complete


def make_run(root: Path, name: str, overrides: list[str] | None,
             summary: dict | None, finished: bool = True) -> Path:
    """A run directory; a ``finished`` error-free run gets its completion record, as replay does."""
    run = root / name
    run.mkdir(parents=True)
    if overrides is not None:
        (run / ".hydra").mkdir()
        (run / ".hydra" / "overrides.yaml").write_text(
            "".join(f"- {o}\n" for o in overrides))
    if summary is not None:
        pd.DataFrame([summary]).to_csv(run / "summary.csv", index=False)
        if finished and not summary.get("error"):
            mark_complete(run, {"run": name}, [run / "summary.csv"])
    return run


@pytest.fixture
def sweep_dir(tmp_path):
    root = tmp_path / "sweep"
    make_run(root, "0", ["scheduler=fifo", "seed=1"],
             {"run_id": "a", "scheduler": "fifo", "jct_mean": 10.0, "error": ""})
    make_run(root, "1", ["scheduler=easy", "seed=1"],
             {"run_id": "b", "scheduler": "easy_backfill", "jct_mean": 7.5, "error": ""})
    make_run(root, "2", ["scheduler=fifo", "seed=2"],
             {"run_id": "c", "scheduler": "fifo", "error": "cluster too small"})
    make_run(root, "10", ["scheduler=easy", "seed=2", "trace.days=3"], None)
    (root / "multirun.yaml").write_text("hydra: {}\n")
    return root


def test_collect_merges_runs_in_natural_order(sweep_dir):
    table = collect(sweep_dir)
    assert table["run"].tolist() == ["0", "1", "2", "10"]
    assert table["status"].tolist() == ["complete", "complete", "failed", "crashed"]
    assert table.loc[2, "error"] == "cluster too small"
    assert "no summary.csv" in table.loc[3, "error"]
    # summary values win (canonical names); overrides fill what a crashed run cannot say
    assert table["scheduler"].tolist() == ["fifo", "easy_backfill", "fifo", "easy"]
    assert table.loc[3, "trace.days"] == "3"
    assert table.loc[1, "jct_mean"] == 7.5


def test_a_summary_without_its_completion_record_is_not_complete(sweep_dir):
    make_run(sweep_dir, "3", ["seed=3"], {"run_id": "d", "jct_mean": 1.0, "error": ""},
             finished=False)  # stopped between writing summary.csv and complete.json
    table = collect(sweep_dir).set_index("run")
    assert table.loc["3", "status"] == "crashed"
    assert "no complete.json" in table.loc["3", "error"]
    (sweep_dir / "1" / "summary.csv").write_text("run_id,jct_mean,error\nb,1.0,\n")
    table = collect(sweep_dir).set_index("run")
    assert table.loc["1", "status"] == "crashed"  # changed since the run finished
    assert "summary.csv was changed" in table.loc["1", "error"]


def test_collect_command_writes_one_csv(sweep_dir, capsys):
    assert main(["collect", str(sweep_dir)]) == 0
    out = sweep_dir / "sweep_summary.csv"
    table = pd.read_csv(out)
    assert len(table) == 4 and set(table["status"]) == {"complete", "failed", "crashed"}
    assert table["seed"].tolist() == [1, 1, 2, 2]
    text = capsys.readouterr().out
    assert "4 runs (2 complete, 1 failed, 1 crashed)" in text
    assert "cluster too small" in text


def test_collect_writes_its_csv_atomically(sweep_dir, monkeypatch):
    assert main(["collect", str(sweep_dir)]) == 0
    out = sweep_dir / "sweep_summary.csv"
    before = out.read_bytes()
    make_run(sweep_dir, "11", ["seed=11"], {"run_id": "e", "error": ""})
    listing = sorted(sweep_dir.iterdir())
    with monkeypatch.context() as patch:
        disk_full(patch, {out.name})
        with pytest.raises(OSError, match="No space left"):
            main(["collect", str(sweep_dir)])
    assert out.read_bytes() == before  # a non-atomic writer leaves a truncated file
    assert sorted(sweep_dir.iterdir()) == listing  # and no partial temporary file
    assert main(["collect", str(sweep_dir)]) == 0
    assert len(pd.read_csv(out)) == 5


def test_collect_to_another_file_and_a_single_run(sweep_dir, tmp_path):
    out = tmp_path / "merged" / "all.csv"
    assert main(["collect", str(sweep_dir / "1"), "--out", str(out)]) == 0
    table = pd.read_csv(out)
    assert table["run"].tolist() == ["."] and table.loc[0, "run_id"] == "b"


def test_collect_of_a_directory_without_runs_is_a_clean_error(tmp_path, capsys):
    assert main(["collect", str(tmp_path)]) == 1
    assert "no run directories" in capsys.readouterr().err
    assert main(["collect", str(tmp_path / "missing")]) == 1
    assert "no such directory" in capsys.readouterr().err


def test_collect_ignores_submitit_bookkeeping(sweep_dir):
    make_run(sweep_dir / ".submitit", "123", ["seed=9"], {"error": ""})
    assert len(collect(sweep_dir)) == 4
