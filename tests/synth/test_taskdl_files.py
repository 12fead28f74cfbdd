"""Writing and reading task-DL traces: the Seren schema followed by the task columns."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from acmesim.cli import main as cli_main
from acmesim.core.errors import TraceError
from acmesim.synth import generate_trace
from acmesim.synth.task_files import read_task_trace, write_task_trace
from acmesim.synth.taskmeta import EXTRA_COLUMNS
from acmesim.trace.formats import SEREN
from acmesim.trace.loaders import load_trace


@pytest.fixture(scope="module")
def jobs() -> pd.DataFrame:
    return generate_trace("taskdl", 2, 4)


def test_round_trip_is_exact(jobs, tmp_path):
    path = tmp_path / "taskdl.csv"
    write_task_trace(jobs, path)
    back = read_task_trace(path)
    pd.testing.assert_frame_equal(back, jobs, check_dtype=False)
    for name in ("task_stage", "gpu_num"):
        assert back[name].dtype == "int64"
    assert back["gpu_util"].dtype == "float64"


def test_header_is_the_seren_schema_then_the_task_columns(jobs, tmp_path):
    path = tmp_path / "taskdl.csv"
    write_task_trace(jobs, path)
    header = path.read_text().splitlines()[0].split(",")
    assert header == [*SEREN.header, *EXTRA_COLUMNS]
    assert load_trace(path).attrs["load_report"].format == "seren"


def test_writing_twice_gives_the_same_bytes(jobs, tmp_path):
    write_task_trace(jobs, tmp_path / "a.csv")
    write_task_trace(jobs, tmp_path / "b.csv")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_bad_utilization_names_line_column_and_value(jobs, tmp_path):
    path = tmp_path / "taskdl.csv"
    write_task_trace(jobs.head(5), path)
    lines = path.read_text().splitlines()
    fields = lines[3].split(",")
    fields[-1] = "1.7"
    lines[3] = ",".join(fields)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceError) as error:
        read_task_trace(path)
    assert error.value.line == 4 and error.value.column == "gpu_util"
    assert "1.7" in str(error.value)


def test_text_with_a_comma_is_refused_before_anything_is_written(jobs, tmp_path):
    bad = jobs.head(3).copy()
    bad.loc[bad.index[0], "task_variant"] = "a,b"
    path = tmp_path / "bad.csv"
    with pytest.raises(Exception, match="comma"):
        write_task_trace(bad, path)
    assert not path.exists()


def test_synth_command_writes_the_task_columns(tmp_path):
    out = tmp_path / "cli.csv"
    assert cli_main(["synth", "--profile", "taskdl", "--days", "1", "--seed", "2",
                     "--out", str(out)]) == 0
    back = read_task_trace(out)
    assert {"workload", "gpu_util"} <= set(back.columns)
    pd.testing.assert_frame_equal(back, generate_trace("taskdl", 1, 2), check_dtype=False)


def test_characterize_command_compares_a_written_trace_with_helios(tmp_path, capsys):
    path = tmp_path / "taskdl14.csv"
    write_task_trace(generate_trace("taskdl", 14, 0), path)
    capsys.readouterr()
    assert cli_main(["characterize", str(path), "--profile", "taskdl", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {f"{r['group']}: {r['metric']}": r for r in report["comparison"]}
    for key in ("run time, all GPU jobs (s): mean", "run time, all GPU jobs (s): median",
                "GPU demand: mean GPUs per GPU job"):
        assert rows[key]["passed"] is True and rows[key]["tolerance"] == 0.15
