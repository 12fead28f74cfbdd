"""The structures derived from the job's declaration agree with it (``acmesim.jobs.fields``)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import factories
import pytest

import acmesim
from acmesim.cluster.view import JobInfo
from acmesim.faults.injector import FaultInjector
from acmesim.jobs.fields import (
    FIELDS,
    INPUT_COLUMNS,
    OUTPUT_FIELDS,
    RECORDER_FIELDS,
    TABLE_FIELDS,
    VIEW_FIELDS,
)
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure import FAILURES
from acmesim.policies.recovery import RECOVERIES
from acmesim.results.recorders import JobRecorder
from acmesim.results.schema import JOBS
from acmesim.run.simulate import simulate
from acmesim.sim.job import Job
from acmesim.sim.trace_input import PLAIN_FIELDS, JobTable, prepare_jobs
from acmesim.trace.schema import NORMALIZED_COLUMNS

READ_ONLY = {f.attr for f in FIELDS if f.attr and f.read_only}


def _declared(values):
    return [v for v in values if v is not None]


def test_every_name_is_declared_once():
    for key in ("name", "attr", "output", "recorder"):
        names = _declared(getattr(f, key) for f in FIELDS)
        assert len(names) == len(set(names)), key


def test_jobs_csv_columns_are_the_declared_outputs_in_order_with_their_text():
    assert [(c.name, c.kind, c.unit, c.meaning) for c in JOBS.columns] == [
        (f.output, f.kind, f.unit, f.meaning) for f in OUTPUT_FIELDS]


def test_a_replay_writes_exactly_the_declared_columns():
    result = simulate(factories.frame([factories.job(0, 10.0), factories.job(5, 20.0, 8)]),
                      cluster=factories.cluster(2))
    assert list(result.jobs.columns) == [f.output for f in OUTPUT_FIELDS]
    assert str(result.jobs["gpu_num"].dtype) == "int64"


def test_the_engine_reads_declared_columns_of_the_normalized_table():
    assert set(INPUT_COLUMNS) <= set(NORMALIZED_COLUMNS)
    assert {f.input for f in FIELDS if f.input} <= set(NORMALIZED_COLUMNS)
    table = prepare_jobs(factories.frame([factories.job(0, 1.0), factories.job(2, 3.0)]),
                         factories.cluster(1))
    for f in TABLE_FIELDS:  # a typed list of its own, or one the declaration alone makes
        assert len(getattr(table, f.table)) == 2, f.name
    own = {c.name for c in dataclasses.fields(JobTable)}
    assert {f.table for f in PLAIN_FIELDS} == {f.table for f in TABLE_FIELDS} - own


def test_every_declared_attribute_is_a_slot_of_the_job():
    assert {f.attr for f in FIELDS if f.attr} <= set(Job.__slots__)


def test_every_view_field_is_on_the_view_and_the_job():
    view = {name for name, value in vars(JobInfo).items() if isinstance(value, property)}
    job = factories.frame([factories.job(0, 1.0)])
    assert set(VIEW_FIELDS) <= view
    # the rest of the view is the engine's progress, which every Job has too
    assert view <= set(Job.__slots__) | {n for n, v in vars(Job).items()
                                         if isinstance(v, property)}
    assert len(job) == 1


def test_modeled_outcomes_are_not_on_the_view():
    """An oracle reading the view cannot see what the failure model made of a job."""
    view = {name for name, value in vars(JobInfo).items() if isinstance(value, property)}
    assert {"work", "outcome", "end_state"}.isdisjoint(view)


def test_the_recorder_keeps_every_declared_outcome():
    recorder = JobRecorder(2)
    for f in RECORDER_FIELDS:
        assert f.attr in Job.__slots__ and not f.read_only
        assert len(recorder.column(f.recorder)) == 2
    assert set(recorder.FLOATS) | set(recorder.INTS) == {"end"} | {
        f.recorder for f in RECORDER_FIELDS}


def _writes_to_read_only_fields(path: Path) -> list[str]:
    """``file:line attr`` of every assignment to a recorded or derived job attribute."""
    hits = []
    for node in ast.walk(ast.parse(path.read_text())):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign)
                   else [])
        for target in targets:
            if (isinstance(target, ast.Attribute) and target.attr in READ_ONLY
                    and isinstance(target.value, ast.Name) and target.value.id in (
                        "job", "j", "engine_job")):
                hits.append(f"{path.name}:{node.lineno} {target.attr}")
    return hits


def test_no_module_writes_a_recorded_field_of_a_job():
    package = Path(acmesim.__file__).parent
    hits = [hit for path in sorted(package.rglob("*.py"))
            for hit in _writes_to_read_only_fields(path)]
    assert hits == []


def test_the_scan_finds_a_write_to_a_recorded_field(tmp_path):
    module = tmp_path / "bad.py"
    module.write_text("def f(job):\n    job.recorded_run_time = 1.0\n    job.work = 2.0\n")
    assert _writes_to_read_only_fields(module) == ["bad.py:2 recorded_run_time"]


@pytest.mark.parametrize("trace_outcomes", ["replace", "both"])
def test_faults_leave_every_recorded_field_as_the_table_has_it(trace_outcomes):
    rows = [factories.job(60 * k, 3000.0 + 500 * k, 8 * (1 + k % 2), 1 + k % 2,
                          type="Pretrain" if k % 3 else "SFT",
                          state="FAILED" if k % 4 == 0 else "COMPLETED") for k in range(12)]
    failure = FAILURES.create("exponential", {"node_mtbf_hours": 1.0,
                                              "trace_outcomes": trace_outcomes,
                                              "script_error_prob": 0.5})
    injector = FaultInjector(failure, CHECKPOINTS.create("none"), RECOVERIES.create("automatic"))
    seen = {}

    probe = factories.OnArrival(lambda job: seen.setdefault(job.index, (
        job, {a: getattr(job, a) for a in READ_ONLY})))
    result = simulate(factories.frame(rows), cluster=factories.cluster(6),
                      extensions=[probe, injector], seed=3)
    assert result.summary["failures"] > 0 and injector.preparer.failed  # both kinds happened
    assert len(seen) == len(rows)
    for job, recorded in seen.values():
        assert {a: getattr(job, a) for a in READ_ONLY} == recorded
