"""The Extension protocol: the one way into a replay (no setup callback, no public hook lists)."""

from __future__ import annotations

import pandas as pd
import pytest
from factories import OnAttach, by_id, cluster, frame, job

import acmesim
from acmesim.energy.extension import PowerExtension
from acmesim.evaluation.modes.coupled import CoupledEval
from acmesim.faults import FaultInjector
from acmesim.sim.extension import Extension, SimulationAPI, overrides
from acmesim.sim.preemption import PreemptionModel
from acmesim.sim.simulation import Simulation


class Recorder(Extension):
    """Counts the engine's calls, rewrites the trace, adds a column and a summary field."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def rewrite(self, jobs: pd.DataFrame, spec) -> pd.DataFrame:
        return jobs[jobs.job_id != "drop"].reset_index(drop=True)

    def attach(self, sim) -> None:
        self.calls.append(("attach", ""))
        first = sim.table.job_id.index("j0")
        sim.call_at(50, lambda: sim.preempt(sim.running[first]))

    def on_arrival(self, job) -> None:
        self.calls.append(("arrival", job.job_id))

    def on_close(self, job, now: float) -> None:
        self.calls.append((f"close@{now:g}", job.job_id))

    def tables(self, done):
        jobs = done["jobs"].copy()
        jobs["seen"] = [sum(c[1] == j for c in self.calls) for j in jobs.job_id]
        return {"jobs": jobs}

    def summary_fields(self):
        return {"preemptions": -1}  # overrides the engine's count: extensions come last


def test_the_engine_calls_each_stage_once_in_order():
    rows = [job(0, 100, 8, job_id="j0"), job(0, 10, 8, job_id="drop"), job(10, 20, 8)]
    recorder = Recorder()
    restart_from_scratch = PreemptionModel(rollback_fraction=1.0, restart_overhead_small=0.0,
                                           restart_overhead_large=0.0)
    result = acmesim.simulate(frame(rows), cluster(1), extensions=[recorder], audit=True,
                              preemption=restart_from_scratch)
    assert sorted(result.jobs.job_id) == ["j0", "j2"]  # the rewrite dropped a job
    assert recorder.calls[0] == ("attach", "")
    arrivals = [j for c, j in recorder.calls if c == "arrival"]
    assert arrivals == ["j0", "j2"]
    closes = [(c, j) for c, j in recorder.calls if c.startswith("close")]
    # j0 preempted at 50, j2 runs 50..70, j0 restarts at 70 and runs its 100 s again
    assert closes == [("close@50", "j0"), ("close@70", "j2"), ("close@170", "j0")]
    assert by_id(result.jobs)["j0"]["seen"] == 3 and result.summary["preemptions"] == -1


def test_an_unknown_summary_field_is_refused_by_name():
    class Stray(Extension):
        def summary_fields(self):
            return {"my_field": 1}

    with pytest.raises(KeyError, match="my_field"):
        acmesim.simulate(frame([job(0, 10, 8)]), cluster(1), extensions=[Stray()])


def test_the_engine_skips_the_hooks_an_extension_leaves_alone():
    table_jobs = frame([job(0, 10, 8)])
    attached = []
    probe = OnAttach(attached.append)
    assert not overrides(probe, "on_arrival") and not overrides(probe, "on_close")
    assert overrides(probe, "attach") and overrides(Recorder(), "on_close")
    acmesim.simulate(table_jobs, cluster(1), extensions=[probe])
    sim = attached[0]
    assert isinstance(sim, Simulation) and sim.extensions[-1] is probe
    assert all(hook.__self__ is not probe for hook in sim._arrival_hooks + sim._close_hooks)


def test_the_built_in_extensions_implement_the_protocols():
    for cls in (FaultInjector, PowerExtension, CoupledEval):
        assert issubclass(cls, Extension)
    sims = []
    acmesim.simulate(frame([job(0, 10, 8)]), cluster(1), extensions=[OnAttach(sims.append)])
    assert isinstance(sims[0], SimulationAPI)  # the engine offers every member of the API


def test_a_given_fault_injector_replaces_the_runs_own():
    from acmesim.policies.checkpoint import CHECKPOINTS
    from acmesim.policies.failure import FAILURES
    from acmesim.policies.recovery import RECOVERIES

    injector = FaultInjector(FAILURES.create("exponential", {"node_mtbf_hours": 0.5}),
                             CHECKPOINTS.create("none"), RECOVERIES.create("automatic"),
                             window=500.0)
    sims = []
    result = acmesim.simulate(frame([job(0, 900, 8)]), cluster(2),
                              extensions=[injector, OnAttach(sims.append)])
    faults = [e for e in sims[0].extensions if isinstance(e, FaultInjector)]
    assert faults == [injector] and len(injector.windows) > 1
    assert result.summary["failure_events"] == len(injector.log) == len(result.failures) > 0
