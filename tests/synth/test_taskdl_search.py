"""Structure of the architecture/objective search class: trial waves and early stopping."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.core.rng import RngStreams
from acmesim.synth.jobs import STATE_NAMES
from acmesim.synth.profiles import GroupModel, StateModel
from acmesim.synth.search import FINAL, TRIAL, SearchModel, search_jobs

COMPLETED = STATE_NAMES.index("COMPLETED")
STATES = StateModel(cancelled=(-1.0, 0.2), failed=(-1.4, 0.0), timeout_of_failed=0.01,
                    node_fail_of_failed=0.01)


def _frame(model: SearchModel, searches: int, seed: int) -> pd.DataFrame:
    starts = np.arange(searches, dtype=np.int64) * 1000
    jobs, meta = search_jobs(RngStreams(seed), model, STATES, starts)
    return pd.DataFrame({
        "search": meta.group, "rung": meta.stage, "variant": meta.variant,
        "parent": meta.parent, "successor": jobs.successor, "gap": jobs.gap,
        "submit": jobs.submit, "work": jobs.work, "state": jobs.state, "gpus": jobs.gpus,
        "start_of_search": starts[meta.group],
    })


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return _frame(SearchModel(), 300, seed=3)


def test_rung0_is_one_wave_per_search_submitted_at_its_start(frame):
    rung0 = frame[frame.rung == 0]
    assert (rung0.submit == rung0.start_of_search).all()
    assert (rung0.groupby("search").submit.nunique() == 1).all()
    assert rung0.groupby("search").size().min() >= SearchModel().min_trials
    # continuations and finals are submitted only after their parent ends (set by the packer)
    assert (frame[frame.rung > 0].submit == -1).all()


def test_every_job_is_single_gpu(frame):
    assert (frame.gpus == 1).all()


def _check_promotions(frame: pd.DataFrame, model: SearchModel) -> None:
    """Rung k+1 holds the best 1/eta of rung k's completed trials; the rest stop early."""
    for _, search in frame.groupby("search"):
        for k in range(model.rungs - 1):
            rung = search[search.rung == k]
            nxt = search[search.rung == k + 1]
            completed = int((rung.state == COMPLETED).sum())
            assert len(nxt) == min(len(rung) // model.eta, completed)
            assert set(nxt.parent) <= set(rung.index)
        last = search[search.rung == model.rungs - 1]
        final = search[search.variant == FINAL]
        assert len(final) == (1 if (last.state == COMPLETED).any() else 0)
        assert set(final.parent) <= set(last.index)


def test_only_completed_trials_continue_and_the_rest_stop_early(frame):
    model = SearchModel()
    _check_promotions(frame, model)
    children = frame[frame.parent >= 0]
    parents = frame.loc[children.parent]
    assert (parents.state == COMPLETED).all()
    assert (parents.rung.to_numpy() + 1 == children.rung.to_numpy()).all()
    assert (frame.loc[children.parent].successor.to_numpy() == children.index.to_numpy()).all()
    stopped = (frame[frame.variant == TRIAL].successor < 0).mean()
    assert stopped > 1 - 1 / model.eta  # most trials are stopped early


def test_budgets_grow_by_eta_per_rung_and_the_final_trains_longest(frame):
    model = SearchModel()
    medians = frame[frame.variant == TRIAL].groupby("rung").work.median()
    ratios = (medians.iloc[1:].to_numpy() / medians.iloc[:-1].to_numpy())
    assert np.all((ratios > model.eta / 1.5) & (ratios < model.eta * 1.5))
    final = frame[frame.variant == FINAL].work.median()
    assert final > 4 * medians.iloc[-1]
    assert (frame[frame.variant == FINAL].rung == model.rungs).all()


def test_gpu_demand_falls_rung_by_rung(frame):
    counts = frame.groupby("rung").size()
    assert counts.is_monotonic_decreasing
    assert counts.iloc[0] > counts.iloc[-1] * 10


def test_model_rejects_unreachable_rungs():
    with pytest.raises(ValueError, match="min_trials"):
        SearchModel(rungs=4, eta=3, min_trials=9)


@settings(max_examples=15, deadline=None)
@given(rungs=st.integers(1, 3), eta=st.integers(2, 4), median=st.floats(4.0, 40.0),
       searches=st.integers(0, 12), seed=st.integers(0, 1000))
def test_promotion_invariants_hold_for_any_search_shape(rungs, eta, median, searches, seed):
    model = SearchModel(trials=GroupModel("batch", median, 0.6, 200), rungs=rungs, eta=eta,
                        min_trials=eta ** (rungs - 1))
    frame = _frame(model, searches, seed)
    _check_promotions(frame, model)
    linked = frame.successor >= 0
    assert (frame.gap[linked] >= 0).all()
    assert frame.successor[linked].is_unique


def test_same_seed_same_searches_and_another_seed_differs():
    a, b = _frame(SearchModel(), 20, 1), _frame(SearchModel(), 20, 1)
    pd.testing.assert_frame_equal(a, b)
    c = _frame(dataclasses.replace(SearchModel()), 20, 2)
    assert not a.work.equals(c.work)
