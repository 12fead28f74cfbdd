"""Structure of the deep-RL class: one long single-GPU run per algorithm variant and seed."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.core.rng import RngStreams
from acmesim.synth.profiles import GroupModel, StateModel
from acmesim.synth.rl import RLModel, rl_jobs

STATES = StateModel(cancelled=(-1.0, 0.2), failed=(-1.4, 0.0), timeout_of_failed=0.01,
                    node_fail_of_failed=0.01)


def _frame(model: RLModel, studies: int, seed: int) -> pd.DataFrame:
    starts = np.arange(studies, dtype=np.int64) * 500
    jobs, meta = rl_jobs(RngStreams(seed), model, STATES, starts)
    return pd.DataFrame({"study": meta.group, "variant": meta.variant, "seed": meta.stage,
                         "submit": jobs.submit, "work": jobs.work, "gpus": jobs.gpus,
                         "cpus": jobs.cpus, "successor": jobs.successor,
                         "study_start": starts[meta.group]})


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return _frame(RLModel(), 400, seed=5)


def _check_grid(frame: pd.DataFrame, model: RLModel) -> None:
    """Each study runs exactly every (chosen variant, seed) pair once."""
    assert not frame.duplicated(["study", "variant", "seed"]).any()
    for _, study in frame.groupby("study"):
        variants = sorted(set(study.variant))
        seeds = study.seed.max() + 1
        assert len(variants) in model.variants_per_study
        expected = set(itertools.product(variants, range(seeds)))
        assert set(zip(study.variant, study.seed, strict=True)) == expected


def test_one_run_per_variant_and_seed(frame):
    _check_grid(frame, RLModel())


def test_runs_are_long_single_gpu_cpu_heavy_and_launched_together(frame):
    model = RLModel()
    assert (frame.gpus == 1).all()
    assert (frame.cpus == model.cpus).all()
    assert (frame.submit == frame.study_start).all()
    assert (frame.successor == -1).all()
    assert frame.work.median() > 4 * 3600
    assert frame.work.max() <= model.run_max


def test_slower_variants_run_longer_for_the_same_study(frame):
    model = RLModel()
    base = frame[frame.variant == "dqn"].groupby("study").work.median()
    for name, factor in zip(model.variants[1:], model.variant_time[1:], strict=True):
        other = frame[frame.variant == name].groupby("study").work.median()
        common = base.index.intersection(other.index)
        ratio = float(np.exp(np.median(np.log(other[common] / base[common]))))
        assert ratio == pytest.approx(factor, rel=0.08)


def test_model_validates_its_variants():
    with pytest.raises(ValueError, match="variant_time"):
        RLModel(variants=("dqn",), variant_time=(1.0, 2.0), variants_per_study={1: 1.0})
    with pytest.raises(ValueError, match="more variants"):
        RLModel(variants=("dqn",), variant_time=(1.0,), variants_per_study={2: 1.0})


@settings(max_examples=15, deadline=None)
@given(studies=st.integers(0, 15), seeds=st.floats(1.0, 6.0), seed=st.integers(0, 1000),
       counts=st.sampled_from([{1: 1.0}, {2: 0.5, 3: 0.5}, {4: 1.0}]))
def test_grid_invariant_for_any_study_shape(studies, seeds, seed, counts):
    model = RLModel(seeds=GroupModel("batch", seeds, 0.5, 8), variants_per_study=counts)
    frame = _frame(model, studies, seed)
    _check_grid(frame, model)
    assert frame.study.nunique() == studies
