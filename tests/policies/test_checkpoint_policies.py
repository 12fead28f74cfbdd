"""Checkpoint policies: registry, cost model calibration, intervals from the job's own MTBF."""

from __future__ import annotations

import math

import pytest

from acmesim.core.errors import ConfigError, UnknownNameError, UnknownOptionError
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.checkpoint.cost import CheckpointCost, StorageModel
from acmesim.policies.checkpoint.model_size import model_params
from acmesim.policies.checkpoint.theory import daly_interval, optimal_interval, young_interval

PRETRAIN_64 = {"job_id": "a", "type": "Pretrain", "gpu_num": 64, "node_num": 8}


def plan(name, job=PRETRAIN_64, mtbf=None, **options):
    return CHECKPOINTS.create(name, options).plan(job, mtbf)


def test_registry_names():
    assert {"none", "fixed", "young", "daly", "optimal"} <= set(CHECKPOINTS.names())
    with pytest.raises(UnknownNameError, match="valid checkpoint names"):
        CHECKPOINTS.get("hourly")


def test_options_are_validated():
    with pytest.raises(UnknownOptionError, match="interval_min"):
        CHECKPOINTS.make_config("young", {"interval_min": 10})
    with pytest.raises(ConfigError, match="mode"):
        CHECKPOINTS.make_config("fixed", {"mode": "lazy"})
    with pytest.raises(ConfigError, match="interval_min"):
        CHECKPOINTS.make_config("fixed", {"interval_min": 0})
    with pytest.raises(ConfigError, match="storage_gbps"):
        CHECKPOINTS.make_config("daly", {"storage_gbps": -1.0})


def test_state_bytes_follow_bytes_per_param():
    # Mixed-precision Adam 2Ψ+2Ψ+12Ψ = 16 B/param (acme_facts §4); BLOOM 14 B/param.
    assert plan("fixed", model_params_b=123.0).state_bytes == pytest.approx(1.968e12)
    assert plan("fixed", model_params_b=7.0).state_bytes == pytest.approx(112e9)
    assert plan("fixed", model_params_b=176.0, bytes_per_param=14.0).state_bytes == (
        pytest.approx(2.464e12))


def test_async_vs_sync_ratio_at_30_min_inside_the_papers_range():
    # acme_facts §4: 3.6–58.7× less checkpoint overhead for 7B and 123B at a 30-minute interval.
    for params_b, gpus in [(7.0, 64), (123.0, 1024)]:
        job = {"type": "Pretrain", "gpu_num": gpus}
        sync = plan("fixed", job, model_params_b=params_b, mode="sync")
        asyn = plan("fixed", job, model_params_b=params_b, mode="async")
        assert 3.6 <= sync.stall / asyn.stall <= 58.7
        assert sync.persist == 0 and asyn.persist > 0
        assert asyn.restore == sync.restore


def test_sync_123b_checkpoint_stalls_a_30_min_interval_by_tens_of_percent():
    sync = plan("fixed", {"type": "Pretrain", "gpu_num": 1024}, model_params_b=123.0, mode="sync")
    assert 0.30 <= sync.stall / sync.interval <= 0.50  # the paper: "up to 43%"


def test_storage_bandwidth_is_capped_per_node_and_per_job():
    storage = StorageModel(storage_gbps=10.0, storage_gbps_per_node=2.0)
    assert storage.write_seconds(4e9, nodes=1) == pytest.approx(2.0)  # node-bound
    assert storage.write_seconds(4e9, nodes=100) == pytest.approx(0.4)  # job-bound
    assert storage.cost(4e9, 8, 1, "sync") == CheckpointCost(4e9, 17.0, 0.0, 17.0)


def test_model_size_rule_anchors_and_clamps():
    assert model_params(64) == pytest.approx(7e9)
    assert model_params(1024) == pytest.approx(123e9)
    assert model_params(1) == 7e9 and model_params(16384) == 123e9
    sizes = [model_params(2**k) for k in range(14)]
    assert sizes == sorted(sizes)


@pytest.mark.parametrize(("name", "formula"), [("young", young_interval),
                                               ("daly", daly_interval),
                                               ("optimal", optimal_interval)])
def test_formula_policies_use_the_job_mtbf(name, formula):
    result = plan(name, mode="sync", model_params_b=7.0)
    assert result.interval == pytest.approx(formula(result.stall, result.mtbf))
    forced = plan(name, mtbf=7200.0, mode="sync", model_params_b=7.0)
    assert forced.mtbf == 7200.0
    assert forced.interval == pytest.approx(formula(forced.stall, 7200.0))


def test_job_mtbf_falls_with_job_size():
    # Llama 3: 0.474 interruptions per 1000 GPU-days => 16,384 GPUs see one every ~3.09 h.
    small = plan("optimal", {"type": "Pretrain", "gpu_num": 1024})
    large = plan("optimal", {"type": "Pretrain", "gpu_num": 16384})
    assert large.mtbf / 3600 == pytest.approx(3.09, abs=0.01)
    assert small.mtbf == pytest.approx(16 * large.mtbf)
    by_node = plan("optimal", {"type": "Pretrain", "gpu_num": 64, "node_num": 8},
                   node_mtbf_hours=800.0)
    assert by_node.mtbf == pytest.approx(100 * 3600.0)


def test_async_formula_interval_is_never_shorter_than_the_write():
    result = plan("optimal", {"type": "Pretrain", "gpu_num": 16384}, model_params_b=123.0)
    assert result.persist > optimal_interval(result.stall, result.mtbf)
    assert result.interval == pytest.approx(result.persist)


def test_fixed_interval_and_no_checkpoint_policies():
    assert plan("fixed", interval_min=45.0).interval == 2700.0
    assert plan("fixed").interval == 1800.0
    none = plan("none")
    assert not none.enabled and none.stall == 0.0 and math.isinf(none.interval)


def test_evaluation_jobs_and_unfailing_jobs_do_not_checkpoint():
    assert not plan("fixed", {"type": "Eval", "gpu_num": 1}).enabled
    assert not plan("optimal", mtbf=math.inf).enabled
    assert plan("fixed", {"type": "Eval", "gpu_num": 1}, job_types=("Eval",)).enabled


def test_job_shape_reads_rows_mappings_and_objects():
    import dataclasses

    import pandas as pd

    from acmesim.policies.job_shape import JobShape

    @dataclasses.dataclass
    class Job:
        job_id: str
        type: str
        gpu_num: int
        node_num: int = 0

    expected = JobShape("j1", "SFT", 12, 2)
    assert JobShape.of({"job_id": "j1", "type": "SFT", "gpu_num": 12}) == expected
    assert JobShape.of(pd.Series({"job_id": "j1", "type": "SFT", "gpu_num": 12,
                                  "node_num": 2})) == expected
    assert JobShape.of(Job("j1", "SFT", 12)) == expected
    assert JobShape.of(expected) is expected
