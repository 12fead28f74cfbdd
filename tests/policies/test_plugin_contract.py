"""Every registered placement, failure, checkpoint, recovery and prediction plug-in keeps the
engine's invariants on random tiny traces under random faults.

Parametrized over the registries, so a new plug-in gets these tests without writing any. Each
example replays random GPU jobs (1- to 3-node gangs) on a 6-node cluster with the plug-in under
test in its slot and defaults elsewhere (``fifo``, ``consolidate``, a random failure trace,
fixed-interval checkpoints, automatic recovery), with fault windows short enough that most runs
outlast several, and checks (``invariants``): no GPU allocated twice and no job on a node out of
service (audited after every pass), every job ends exactly once, GPU time conserved job by job,
``utilization.csv`` GPU time equal to ``jobs.csv`` GPU time, faults keep coming while work
remains (every fault of the trace before the end struck), and each recovery plan is what
happens (the cordon taken down, the job relaunched in place or requeued as planned).
"""

from __future__ import annotations

import dataclasses
import inspect
import tempfile
from pathlib import Path

import pytest
from factories import OnAttach, cluster, frame, job
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import (
    assert_every_job_ends_once,
    assert_faults_keep_coming,
    assert_gpu_time_conserved,
    assert_trace_faults_struck,
    assert_utilization_matches_jobs,
    audit_down_nodes,
    check_plans_happen,
)

from acmesim.faults import FaultInjector
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure import FAILURES
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.prediction import PREDICTORS
from acmesim.policies.recovery import RECOVERIES
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.run import simulate

NODES = 6
WINDOW = 1500.0
"""Fault window (s): runs of a few thousand seconds draw several."""
KINDS = ["nvlink_error", "ecc_error", "infra_software", "switch_failure", "nccl_timeout",
         "node_failure"]
REGISTRIES = {"placement": PLACEMENTS, "failure": FAILURES, "checkpoint": CHECKPOINTS,
              "recovery": RECOVERIES, "prediction": PREDICTORS}
CASES = [(kind, name) for kind, registry in REGISTRIES.items() for name in registry.names()]
PREDICTING = [name for name in SCHEDULERS.names()
              if "predictor" in {f.name for f in dataclasses.fields(SCHEDULERS.config_class(name))}]
"""Schedulers that take a run-time predictor (they replay the prediction plug-ins)."""

jobs_strategy = st.lists(st.tuples(
    st.integers(0, 2000),                                           # submit (s)
    st.integers(1, 3000),                                           # run time (s)
    st.sampled_from([(1, 1), (4, 1), (8, 1), (16, 2), (24, 3)]),    # (GPUs, nodes)
    st.sampled_from(["Pretrain", "SFT", "Eval", "Other"]),
), min_size=1, max_size=8)
faults_strategy = st.lists(st.tuples(
    st.integers(0, 6000), st.integers(0, NODES - 1), st.sampled_from(KINDS),
    st.integers(0, 2000),                                           # repair (s)
), max_size=6)


def stress(config_class: type, mtbf_hours: float, trace: Path) -> dict:
    """Options that make a plug-in's faults frequent, for whichever of them it declares."""
    fields = {f.name for f in dataclasses.fields(config_class)}
    known = {"node_mtbf_hours": mtbf_hours, "path": str(trace),
             "gpu_failures_per_1000_gpu_days": 24_000.0 / (8 * mtbf_hours)}
    return {key: value for key, value in known.items() if key in fields}


def plugins(kind: str, name: str, trace: Path, mtbf_hours: float, interval_min: float,
            predicting: str):
    """(scheduler, placement, failure model, checkpoint policy, recovery policy) of a case."""
    chosen = {"placement": "consolidate", "failure": "trace", "checkpoint": "fixed",
              "recovery": "automatic", kind: name}
    failure = FAILURES.create(chosen["failure"], stress(
        FAILURES.config_class(chosen["failure"]), mtbf_hours, trace))
    options = stress(CHECKPOINTS.config_class(chosen["checkpoint"]), mtbf_hours, trace)
    if chosen["checkpoint"] == "fixed":
        options["interval_min"] = interval_min
    checkpoint = CHECKPOINTS.create(chosen["checkpoint"], options)
    recovery = RECOVERIES.create(chosen["recovery"])
    scheduler = (SCHEDULERS.create(predicting, {"predictor": name}) if kind == "prediction"
                 else SCHEDULERS.create("fifo"))
    return scheduler, PLACEMENTS.create(chosen["placement"]), failure, checkpoint, recovery


@pytest.mark.parametrize(("kind", "name"), CASES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jobs=jobs_strategy, faults=faults_strategy, mtbf_hours=st.sampled_from([6.0, 24.0]),
       interval_min=st.sampled_from([1.0, 10.0]), seed=st.integers(0, 3),
       predicting=st.sampled_from(PREDICTING))
def test_every_plugin_keeps_the_invariants_under_faults(kind, name, jobs, faults, mtbf_hours,
                                                       interval_min, seed, predicting):
    rows = [job(s, r, g, n, type=t) for s, r, (g, n), t in jobs]
    lines = ["time,node,kind,repair_time"]
    lines += [f"{t},n{node:04d},{k},{repair}" for t, node, k, repair in faults]
    with tempfile.TemporaryDirectory() as folder:
        trace = Path(folder) / "faults.csv"
        trace.write_text("\n".join(lines) + "\n")
        scheduler, placement, failure, checkpoint, recovery = plugins(
            kind, name, trace, mtbf_hours, interval_min, predicting)
    injector = FaultInjector(failure, checkpoint, recovery, window=WINDOW)

    def setup(sim) -> None:
        audit_down_nodes(sim)
        check_plans_happen(recovery, sim)

    result = simulate(frame(rows), cluster(NODES, per_leaf=3), scheduler, placement,
                      extensions=[injector, OnAttach(setup)], audit=True, seed=seed)
    end = result.summary["simulated_span"]
    assert_every_job_ends_once(result.jobs, len(rows))
    assert_gpu_time_conserved(result.jobs)
    assert_utilization_matches_jobs(result)
    assert_faults_keep_coming(injector, end)
    if getattr(failure.config, "path", None):
        assert_trace_faults_struck([t for t, *_ in faults], injector, end)
    assert injector.failures_table()["jobs_hit"].sum() == result.jobs["failures"].sum()


# ---------------------------------------------------------------- the Protocols
def _contracts():
    """(kind, registry, Protocol) of every plug-in kind the engine calls through a contract."""
    import acmesim.evaluation.scheduling  # noqa: F401  (registers eval_* with SCHEDULERS)
    from acmesim.policies.checkpoint.base import CheckpointPolicyProtocol
    from acmesim.policies.failure.base import FailureModelProtocol
    from acmesim.policies.placement.base import PlacementProtocol
    from acmesim.policies.power import POWERS
    from acmesim.policies.power.base import PowerModelProtocol
    from acmesim.policies.prediction.base import PredictorProtocol
    from acmesim.policies.recovery.base import RecoveryPolicyProtocol
    from acmesim.policies.scheduling.base import SchedulerProtocol
    from acmesim.sources import TRACES
    from acmesim.sources.base import TraceSourceProtocol
    from acmesim.trace.loaders.base import TRACE_FORMATS, TraceFormatProtocol

    return [("scheduler", SCHEDULERS, SchedulerProtocol),
            ("placement", PLACEMENTS, PlacementProtocol),
            ("prediction", PREDICTORS, PredictorProtocol),
            ("failure", FAILURES, FailureModelProtocol),
            ("checkpoint", CHECKPOINTS, CheckpointPolicyProtocol),
            ("recovery", RECOVERIES, RecoveryPolicyProtocol),
            ("power", POWERS, PowerModelProtocol),
            ("trace format", TRACE_FORMATS, TraceFormatProtocol),
            ("trace source", TRACES, TraceSourceProtocol)]


CONTRACTS = _contracts()
PLUGINS = [(kind, name, registry, protocol) for kind, registry, protocol in CONTRACTS
           for name in registry.names()]


def _methods(protocol: type) -> dict[str, inspect.Signature]:
    """The methods a Protocol declares (its own, not ``object``'s), with their signatures."""
    found = {}
    for name, value in vars(protocol).items():
        function = value.__func__ if isinstance(value, classmethod | staticmethod) else value
        if not name.startswith("_") and inspect.isfunction(function):
            found[name] = inspect.signature(function)
    return found


def _accepts(implemented: inspect.Signature, declared: inspect.Signature) -> list[str]:
    """The parameters of ``declared`` that ``implemented`` cannot take by the same name/kind."""
    params = implemented.parameters
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params.values())
    var_pos = any(p.kind is p.VAR_POSITIONAL for p in params.values())
    missing = []
    for name, param in declared.parameters.items():
        if name in ("self", "cls"):
            continue
        mine = params.get(name)
        if mine is None:
            ok = var_kw if param.kind is param.KEYWORD_ONLY else var_pos
        else:
            ok = mine.kind is param.kind or (
                mine.kind is mine.POSITIONAL_OR_KEYWORD and param.kind is not param.VAR_KEYWORD)
            ok = ok and (param.default is param.empty or mine.default is not mine.empty)
        if not ok:
            missing.append(name)
    return missing


def test_every_plugin_kind_has_a_runtime_checkable_protocol_with_documented_methods():
    assert {kind for kind, _, _ in CONTRACTS} >= {
        "scheduler", "placement", "prediction", "failure", "checkpoint", "recovery", "power"}
    for kind, _, protocol in CONTRACTS:
        assert getattr(protocol, "_is_protocol", False), kind
        assert getattr(protocol, "_is_runtime_protocol", False), kind
        assert protocol.__doc__ and "registry" in protocol.__doc__, kind
        methods = _methods(protocol)
        assert methods, f"{kind}: the Protocol declares no method"
        for name in methods:
            assert inspect.getdoc(getattr(protocol, name)), f"{kind}.{name} has no docstring"


@pytest.mark.parametrize(("kind", "name", "registry", "protocol"), PLUGINS,
                         ids=[f"{kind}:{name}" for kind, name, _, _ in PLUGINS])
def test_every_registered_plugin_implements_its_protocol(kind, name, registry, protocol):
    cls = registry.get(name)
    for method, declared in _methods(protocol).items():
        implemented = getattr(cls, method, None)
        assert callable(implemented), f"{kind} {name!r} has no {method}()"
        assert implemented is not getattr(protocol, method), (
            f"{kind} {name!r} inherits the Protocol's empty {method}() instead of implementing it")
        missing = _accepts(inspect.signature(implemented), declared)
        assert not missing, f"{kind} {name!r}.{method}() does not take {missing}"


def _options(kind: str, name: str, folder: Path) -> dict:
    """Options a plug-in cannot be built without (a file to read), else none."""
    from acmesim.synth import sample_trace_path

    if (kind, name) == ("failure", "trace"):
        faults = folder / "faults.csv"
        faults.write_text("time,node,kind\n10,n0000,node_failure\n")
        return {"path": str(faults)}
    if (kind, name) == ("trace source", "file"):
        return {"path": str(sample_trace_path())}
    if (kind, name) == ("trace format", "csv"):
        return {"columns": {"submit_time": "submitted", "gpu_num": "gpus", "duration": "run"}}
    return {}


@pytest.mark.parametrize(("kind", "name", "registry", "protocol"), PLUGINS,
                         ids=[f"{kind}:{name}" for kind, name, _, _ in PLUGINS])
def test_every_registered_plugin_instance_satisfies_its_protocol(kind, name, registry, protocol,
                                                                  tmp_path):
    plugin = registry.create(name, _options(kind, name, tmp_path))
    assert isinstance(plugin, protocol), f"{kind} {name!r} is not a {protocol.__name__}"


def test_the_protocol_check_rejects_a_plugin_that_imitates_the_contract():
    from acmesim.policies.failure.base import FailureModelProtocol

    class Imitation:  # the old NoFailures: no window_events
        sources = None

        def events(self, cluster, horizon, rng):
            return iter(())

        def job_software_failure(self, job, rng):
            return None

        def job_mtbf(self, gpus, nodes):
            return float("inf")

    assert not isinstance(Imitation(), FailureModelProtocol)
    assert "window_events" in _methods(FailureModelProtocol)

    class WrongSignature(Imitation):
        def window_events(self, cluster, begin, finish, rng):
            return iter(())

    assert _accepts(inspect.signature(WrongSignature.window_events),
                    _methods(FailureModelProtocol)["window_events"]) == ["start", "end"]
