"""THE validator of the job table (``acmesim.jobs.table``): one set of rules, derived from the
declarations, used by every entry, and a table validated once is not validated again."""

from __future__ import annotations

from pathlib import Path

import factories
import pandas as pd
import pytest

from acmesim.core.errors import TraceError
from acmesim.jobs import table
from acmesim.jobs.fields import INPUT_FIELDS
from acmesim.run.simulate import simulate
from acmesim.synth import sample_trace_path
from acmesim.trace.loaders import load_trace

DATA = Path(__file__).parents[1] / "trace" / "data"
ROWS = [factories.job(0, 10.0, job_id="a"), factories.job(5, 20.0, 8, job_id="b"),
        factories.job(6, 30.0, 2, job_id="c")]


@pytest.fixture
def validations(monkeypatch):
    """Counts every full validation of a table (the rules, not the mark)."""
    calls: list[int] = []
    real = table.validate_table

    def counted(frame, **options):
        calls.append(len(frame))
        return real(frame, **options)

    monkeypatch.setattr(table, "validate_table", counted)
    return calls


def test_every_input_column_is_declared_with_the_kind_its_rules_come_from():
    assert all(f.column in ("text", "time", "seconds", "count") for f in INPUT_FIELDS)
    assert {f.input for f in INPUT_FIELDS if f.column == "count"} == {
        "gpu_num", "node_num", "cpu_num"}


@pytest.mark.parametrize("eval_mode", ["none", "coupled"])
def test_a_loaded_trace_is_not_validated_again_by_the_replay(validations, eval_mode):
    jobs = load_trace(DATA / "seren_example.csv")
    assert table.is_marked(jobs)
    simulate(jobs, cluster="tiny", eval=eval_mode)
    assert validations == []


def test_a_table_built_in_python_is_validated_once_however_many_stages_read_it(validations):
    frame = factories.frame([factories.job(0, 10.0, type="Eval"), factories.job(0, 5.0)])
    simulate(frame, cluster=factories.cluster(2), eval="coupled")
    simulate(frame, cluster=factories.cluster(2))
    assert validations == [2]


def test_the_decoupled_rewrite_is_a_new_table_validated_by_the_engine(validations):
    frame = factories.frame([factories.job(0, 100.0, type="Eval", job_id=f"e{i}")
                             for i in range(3)])
    simulate(frame, cluster=factories.cluster(2), eval="decoupled")
    assert len(validations) == 2  # the input (by the rewrite), then the rewritten table


def test_a_loaded_table_edited_in_place_is_validated_again():
    jobs = load_trace(DATA / "seren_example.csv")
    jobs.loc[1, "gpu_num"] = -4
    assert not table.is_marked(jobs)
    with pytest.raises(TraceError) as error:
        simulate(jobs, cluster="tiny")
    assert (error.value.column, error.value.value) == ("gpu_num", -4)
    assert error.value.reason.startswith(f"row 1 (job_id {jobs['job_id'][1]!r}): negative")


def test_a_text_cell_written_in_place_is_seen():
    frame = table.validated(factories.frame(ROWS))
    frame.loc[1, "state"] = "RUNNING"
    with pytest.raises(TraceError, match="row 1 .job_id 'b'.: not a final job state"):
        table.validated(frame)


@pytest.mark.parametrize(("spoil", "column", "reason"), [
    (lambda f: f.assign(job_id=["a", "b", "a"]), "job_id", "duplicate job id"),
    (lambda f: f.assign(state=["COMPLETED", "PENDING", "FAILED"]), "state",
     "not a final job state"),
    (lambda f: f.assign(run_time=[10.0, 25.0, 30.0]), "run_time",
     "run_time disagrees with end_time - start_time"),
    (lambda f: f.assign(node_num=[1, 1.5, 1]), "node_num", "count is not a whole number"),
])
def test_a_table_given_to_simulate_gets_the_rules_of_a_trace_file(spoil, column, reason):
    with pytest.raises(TraceError) as error:
        simulate(spoil(factories.frame(ROWS)), cluster=factories.cluster(2))
    assert error.value.column == column and reason in error.value.reason
    assert error.value.reason.startswith("row ")


@pytest.mark.parametrize("eval_mode", ["coupled", "decoupled"])
def test_the_evaluation_rewrite_names_a_bad_row_and_column(eval_mode):
    frame = factories.frame(ROWS).astype({"gpu_num": float})
    frame.loc[2, "gpu_num"] = 2.5
    with pytest.raises(TraceError) as error:
        simulate(frame, cluster=factories.cluster(2), eval=eval_mode)
    assert (error.value.column, error.value.value) == ("gpu_num", 2.5)
    assert error.value.reason.startswith("row 2 (job_id 'c')")


def test_a_missing_column_is_named():
    with pytest.raises(TraceError, match="missing column.s. cpu_num"):
        table.validated(factories.frame(ROWS).drop(columns="cpu_num"))


def test_a_file_and_a_table_break_the_same_rule_on_the_same_row(tmp_path):
    jobs = load_trace(sample_trace_path())
    spoiled = jobs.assign(job_id=jobs["job_id"].where(jobs.index != 3, jobs["job_id"][1]))
    with pytest.raises(TraceError) as in_table:
        table.validated(spoiled)
    path = tmp_path / "dup.csv"
    raw = pd.read_csv(sample_trace_path(), dtype=str, keep_default_na=False)
    raw.loc[3, "job_id"] = raw.loc[1, "job_id"]
    raw.to_csv(path, index=False)
    with pytest.raises(TraceError) as in_file:
        load_trace(path)
    assert (in_file.value.line, in_file.value.reason) == (3 + 2, "duplicate job id")
    assert in_table.value.reason == f"row 3 (job_id {jobs['job_id'][1]!r}): duplicate job id"
    assert in_file.value.column == in_table.value.column == "job_id"
