"""Failure models: rates, cause mix, scopes, trace outcomes, calibration, failure-trace reading."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from acmesim.core.errors import ConfigError, TraceError
from acmesim.policies.failure import FAILURES
from acmesim.policies.failure.base import failure_sources
from acmesim.policies.failure.events import SCOPES, ClusterInfo
from acmesim.policies.failure.kinds import llama3_kinds, mean_repair_hours
from acmesim.policies.failure.rates import LLAMA3_NODE_MTBF_HOURS
from calibration.reliability import failure_shares, seren_population

CLUSTER = ClusterInfo.uniform(286)  # Seren: 286 nodes x 8 GPUs (acme_facts §1)
YEAR = 365 * 86_400.0


def model(name, **options):
    return FAILURES.create(name, options)


def events(name, horizon=YEAR, seed=0, cluster=CLUSTER, **options):
    return list(model(name, **options).events(cluster, horizon, np.random.default_rng(seed)))


def test_registry_names():
    assert {"none", "exponential", "weibull", "acme", "trace"} <= set(FAILURES.names())


def test_none_never_fails():
    none = model("none")
    assert events("none") == []
    assert none.job_software_failure({"type": "SFT"}, np.random.default_rng(0)) is None
    assert math.isinf(none.job_mtbf(8, 1))
    assert none.sources.recorded and not none.sources.hardware


def test_exponential_event_count_matches_renewal_rate():
    # Each node alternates MTBF of uptime and a repair: rate = 1 / (MTBF + mean repair).
    mtbf_h = 500.0
    found = events("exponential", node_mtbf_hours=mtbf_h)
    kinds = llama3_kinds()
    weights = np.array([k.weight for k in kinds])
    repair_h = float(np.dot(weights / weights.sum(), [mean_repair_hours(k) for k in kinds]))
    expected = len(CLUSTER.nodes) * YEAR / 3600 / (mtbf_h + repair_h)
    assert abs(len(found) - expected) < 5 * math.sqrt(expected)


def test_events_are_sorted_valid_and_reproducible():
    found = events("exponential", node_mtbf_hours=300.0, seed=4)
    again = events("exponential", node_mtbf_hours=300.0, seed=4)
    assert found == again
    assert found != events("exponential", node_mtbf_hours=300.0, seed=5)
    times = [e.time for e in found]
    assert times == sorted(times) and 0 <= times[0] and times[-1] < YEAR
    switches = set(CLUSTER.switch_of)
    for event in found:
        assert event.scope in SCOPES and event.detection_delay > 0 and event.repair_time >= 0
        if event.scope == "switch":
            assert event.target in switches and event.gpu is None
        else:
            assert event.target in CLUSTER.nodes
        if event.scope == "gpu":
            assert 0 <= event.gpu < 8


def test_cause_mix_follows_llama3_counts():
    found = events("exponential", node_mtbf_hours=50.0, horizon=YEAR / 2)
    counts = {}
    for event in found:
        counts[event.kind] = counts.get(event.kind, 0) + 1
    n = len(found)
    assert counts["nvlink_error"] / n == pytest.approx(148 / 419, abs=0.02)
    assert counts["ecc_error"] / n == pytest.approx(91 / 419, abs=0.02)
    assert counts["switch_failure"] / n == pytest.approx(17.5 / 419, abs=0.01)
    transient = {e.repair_time for e in found if e.kind in ("nccl_timeout", "infra_software")}
    assert transient == {0.0}


def test_switch_faults_fall_back_to_nodes_without_topology():
    flat = ClusterInfo(tuple(f"n{i}" for i in range(50)))
    found = events("exponential", node_mtbf_hours=20.0, cluster=flat)
    assert {e.scope for e in found} <= {"gpu", "node"}
    assert any(e.kind == "switch_failure" for e in found)


def test_job_mtbf_of_each_model():
    assert model("exponential", node_mtbf_hours=100.0).job_mtbf(64, 8) == pytest.approx(45000.0)
    assert model("acme").job_mtbf(16384, 2048) / 3600 == pytest.approx(3.09, abs=0.01)
    assert model("acme").job_mtbf(8, 1) / 3600 == pytest.approx(
        LLAMA3_NODE_MTBF_HOURS, rel=1e-12)


def test_weibull_mean_gap_and_decreasing_hazard():
    weibull = model("weibull", node_mtbf_hours=10.0, shape=0.7)
    gaps = weibull.time_to_failure(np.random.default_rng(1), 200_000, 8)
    assert gaps.mean() / 3600 == pytest.approx(10.0, rel=0.02)
    assert gaps.std() / gaps.mean() > 1.2
    assert weibull.job_mtbf(64, 8) == pytest.approx(10 * 3600 / 8)


def test_trace_outcomes_decide_who_supplies_job_failures():
    assert failure_sources("replay") == failure_sources("replay", True)
    assert not failure_sources("replay").job_failures and failure_sources("replay").recorded
    assert failure_sources("replace").job_failures and not failure_sources("replace").recorded
    assert failure_sources("both").job_failures and failure_sources("both").recorded
    with pytest.raises(ConfigError, match="trace_outcomes"):
        FAILURES.make_config("acme", {"trace_outcomes": "sometimes"})
    rng = np.random.default_rng(0)
    job = {"type": "SFT", "gpu_num": 8}
    assert model("acme").job_software_failure(job, rng) is None  # replay: the trace has them
    replace = model("acme", trace_outcomes="replace")
    failures = [replace.job_software_failure(job, rng) for _ in range(4000)]
    # Within 10 min: 1 − (1 − 0.4)(1 − 0.2)·e^{−16/day · 10 min} = 0.570 (script, framework, aux).
    within = np.mean([f.time < 600 for f in failures])
    assert within == pytest.approx(0.570, abs=0.03)
    early = [f.time for f in failures if f.category in ("script", "framework")]
    assert np.mean(early) == pytest.approx(30.0, rel=0.15)  # mean 0.5 min: early in the run
    assert {f.category for f in failures} == {"script", "framework", "infrastructure"}


def test_error_free_types_get_no_script_or_framework_errors():
    acme = model("acme", trace_outcomes="replace", error_free_types=("Eval",),
                 aux_errors_per_job_day=0.0)
    rng = np.random.default_rng(0)
    assert all(acme.job_software_failure({"type": "Eval"}, rng) is None for _ in range(200))


def test_acme_defaults_reproduce_the_papers_failure_shares():
    # acme_facts §2.6/§3: ~43% of Seren GPU jobs fail; infrastructure failures are ~11% of
    # failed jobs but >82% of the GPU time of failed jobs.
    population = seren_population(np.random.default_rng(0), 60_000)
    acme = model("acme", trace_outcomes="replace")
    shares = failure_shares(population, acme.config.gpu_failures_per_1000_gpu_days,
                            acme.config.job_error_rates(), np.random.default_rng(1))
    assert 0.38 <= shares.failed_fraction <= 0.48
    assert 0.08 <= shares.infra_share_of_failed_jobs <= 0.14
    assert shares.infra_share_of_failed_gpu_time > 0.82


def test_reference_population_resembles_seren():
    population = seren_population(np.random.default_rng(2), 60_000)
    gpu_time = population.gpus * population.run_time
    assert np.median(population.run_time) == pytest.approx(122, rel=0.2)  # R-SUM median 122 s
    assert population.gpus.mean() == pytest.approx(5.68, rel=0.15)  # R-SUM mean 5.68
    assert gpu_time[population.job_type == "Pretrain"].sum() / gpu_time.sum() > 0.6  # §2.2 69.5%


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "faults.csv"
    path.write_text(text)
    return str(path)


def test_trace_model_replays_rows_and_fills_defaults(tmp_path):
    path = write(tmp_path, "time,node,kind,repair_time,gpu\n"
                           "500,node0003,ecc_error,,5\n"
                           "100,node0017,switch_failure,7200,\n"
                           "9e9,node0001,node_failure,,\n")
    trace = model("trace", path=path)
    found = list(trace.events(CLUSTER, YEAR, np.random.default_rng(0)))
    assert [e.time for e in found] == [100.0, 500.0]
    switch, ecc = found
    assert (switch.scope, switch.target, switch.repair_time) == ("switch", "leaf001", 7200.0)
    assert (ecc.scope, ecc.target, ecc.gpu, ecc.detection_delay) == ("gpu", "node0003", 5, 10.0)
    assert ecc.repair_time > 0
    assert trace.job_mtbf(8, 1) is None
    assert model("trace", path=path, node_mtbf_hours=10.0).job_mtbf(8, 2) == 18000.0


@pytest.mark.parametrize(("text", "line", "column", "fragment"), [
    ("time,node\n1,node0001\n", 1, None, "missing column(s) kind"),
    ("time,node,kind\n1,node0001,ecc_error\nsoon,node0002,ecc_error\n", 3, "time", "'soon'"),
    ("time,node,kind\n-5,node0001,ecc_error\n", 2, "time", "finite number >= 0"),
    ("time,node,kind\n1,node0001,gremlins\n", 2, "kind", "nvlink_error"),
    ("time,node,kind\n1,,ecc_error\n", 2, "node", "empty node"),
    ("time,node,kind,gpu\n1,node0001,ecc_error,1.5\n", 2, "gpu", "integer"),
    ("", None, None, "empty failure trace"),
])
def test_trace_errors_name_line_column_and_expectation(tmp_path, text, line, column, fragment):
    with pytest.raises(TraceError) as error:
        model("trace", path=write(tmp_path, text))
    assert error.value.line == line and error.value.column == column
    assert fragment in str(error.value)
    assert "faults.csv" in str(error.value)


@pytest.mark.parametrize(("row", "column"), [("1,node9999,ecc_error,", "node"),
                                             ("1,node0001,ecc_error,8", "gpu")])
def test_trace_rows_are_checked_against_the_cluster(tmp_path, row, column):
    trace = model("trace", path=write(tmp_path, f"time,node,kind,gpu\n{row}\n"))
    with pytest.raises(TraceError) as error:
        list(trace.events(CLUSTER, YEAR, np.random.default_rng(0)))
    assert (error.value.line, error.value.column) == (2, column)


def test_trace_needs_an_existing_path(tmp_path):
    with pytest.raises(ConfigError, match="failure.path"):
        FAILURES.create("trace", {})
    with pytest.raises(TraceError, match="not found"):
        FAILURES.create("trace", {"path": str(tmp_path / "missing.csv")})


def test_cluster_info_topology_helpers():
    cluster = ClusterInfo.uniform(40, nodes_per_switch=16)
    assert cluster.num_gpus == 320
    assert cluster.nodes_under("leaf002") == tuple(f"node{i:04d}" for i in range(32, 40))
    with pytest.raises(ValueError, match="unique"):
        ClusterInfo(("a", "a"))
    with pytest.raises(ValueError, match="horizon"):
        model("exponential").events(cluster, -1.0, np.random.default_rng(0))
