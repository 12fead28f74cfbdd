"""The submission process of the synthetic generator: users, batches and sweeps, quiet spells.

The trace-level test checks the four published arrival statistics of Seren (issue 11) on a
30-day trace; the others check each mechanism against an exact or an analytic expectation.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.analysis.characterize import burstiness
from acmesim.synth import arrivals, generate_trace, get_profile
from acmesim.synth.generate import _Generator
from acmesim.synth.profiles import USER_ZIPF, GroupModel, QuietModel
from acmesim.trace.targets import SEREN


@pytest.fixture(scope="module")
def seren_month():
    return generate_trace("seren", 30, 1)


def test_a_month_of_seren_has_the_published_arrival_statistics(seren_month):
    measured = burstiness(seren_month)
    for key, published in SEREN.arrivals.items():
        tolerance = SEREN.tolerance(key)
        assert tolerance.passes(measured[key], published), (key, measured[key], published)


def test_the_user_exponent_is_derived_from_the_published_top5_share():
    assert arrivals.zipf_exponent_for_top_share(400, 5, 0.637) == pytest.approx(USER_ZIPF,
                                                                                abs=1e-3)
    shares = arrivals.zipf_shares(400, USER_ZIPF)
    assert shares.sum() == pytest.approx(1.0) and shares[:5].sum() == pytest.approx(0.637,
                                                                                   abs=1e-3)


def test_users_are_dealt_so_each_holds_its_zipf_share_of_jobs():
    rng = np.random.default_rng(3)
    sizes = np.concatenate([rng.integers(1, 30, 3000), [4000, 2500, 900]])
    ranking = np.arange(50)[::-1]  # rank r is user 49 - r
    users = arrivals.zipf_users_by_jobs(rng, 50, 1.2, sizes, ranking)
    jobs = np.bincount(users, weights=sizes, minlength=50)[::-1]  # by rank
    expected = arrivals.zipf_shares(50, 1.2) * sizes.sum()
    assert np.abs(jobs - expected).max() <= sizes.max()  # within one group of the model
    assert users[-3] == ranking[0]  # the largest sweep belongs to the heaviest user


def test_sizes_for_jobs_add_up_exactly_and_keep_the_storms():
    model = GroupModel("session", 1.0, 3.0, 20000, gap_mean=3.0, gap_min=1, array_min=5000)
    rng = np.random.default_rng(5)
    for jobs in (1, 37, 10_000, 368_000):
        sizes = arrivals.sizes_for_jobs(rng, model, jobs)
        assert sizes.sum() == jobs and sizes.min() >= 1 and sizes.max() <= 20000
    big = arrivals.sizes_for_jobs(rng, model, 368_000)
    # stratified: about n * P(size >= 5000) storms (lognormal median 1, sigma 3)
    n = round(368_000 / arrivals.mean_group_size(model))
    p = 0.5 * (1 - math.erf(np.log(4999.5) / 3.0 / math.sqrt(2)))
    assert abs((big >= 5000).sum() - n * p) <= 2


def test_at_once_groups_take_their_share_in_every_size_class():
    rng = np.random.default_rng(1)
    sizes = np.arange(1, 1001)
    flags = arrivals.at_once_groups(rng, sizes, 0.3)
    assert abs(flags.sum() - 300) <= 1
    top = np.argsort(-sizes)[:10]  # ten neighbouring sizes hold three arrays
    assert flags[top].sum() == 3


def test_groups_at_once_share_a_second_and_the_others_follow_at_least_gap_min_apart():
    model = GroupModel("session", 5.0, 0.0, 5, gap_mean=4.0, gap_min=1, array_min=5)
    times = np.array([0, 100_000])
    _, position, submit = arrivals.expand_groups(np.random.default_rng(2), model, times,
                                                 np.array([5, 4]))
    assert (submit[:5] == 0).all()  # five jobs reach array_min: one array job
    assert (np.diff(submit[5:]) >= 1).all() and submit[5] == 100_000  # a loop, >= 1 s apart
    assert position.tolist() == [0, 1, 2, 3, 4, 0, 1, 2, 3]


def test_quiet_spells_take_their_share_and_no_group_arrives_in_them():
    model = QuietModel(share=0.12, median=12 * 3600.0, sigma=0.5)
    span = 2000 * 86400
    spells = arrivals.quiet_spells(np.random.default_rng(4), model, 0, span)
    covered = (spells[:, 1] - spells[:, 0]).sum() / span
    assert covered == pytest.approx(0.12, abs=0.02)
    assert (np.diff(spells.ravel()) >= 0).all()  # sorted, disjoint
    profile = get_profile("seren")
    times = arrivals.group_times(np.random.default_rng(6), profile, 0, 500.0, 0, span, 1.0,
                                 spells)
    assert len(times) == arrivals.expected_arrivals(profile, 0, 500.0, 0, span, 1.0)
    inside = np.searchsorted(spells[:, 0], times, side="right") - 1
    assert not ((inside >= 0) & (times < spells[np.maximum(inside, 0), 1])).any()


def test_a_window_wholly_inside_a_quiet_spell_still_gets_its_arrivals():
    profile = get_profile("seren")
    spells = np.array([[-3600, 50_000]], dtype=np.int64)  # covers all of [0, 43,200)
    times = arrivals.group_times(np.random.default_rng(6), profile, 0, 0.0, 0, 43_200, 1.0,
                                 spells, count=49)
    assert len(times) == 49
    assert times.min() >= 0 and times.max() < 43_200


@pytest.mark.parametrize("seed", range(1, 6))
def test_a_half_day_trace_generates_every_type(seed):
    trace = generate_trace("seren", 0.5, seed)  # short enough to fall inside one quiet spell
    assert len(trace) > 0
    assert trace["type"].nunique() >= 4


def test_quiet_spells_draw_from_their_own_stream():
    profile = get_profile("kalos")
    quiet = _Generator(profile, 10, 8).plan()[0]
    flat = _Generator(dataclasses.replace(profile, quiet=QuietModel()), 10, 8).plan()[0]
    # the spells move arrival times only: sizes, GPU counts and run times are the same draws
    assert np.array_equal(quiet.gpus, flat.gpus) and np.array_equal(quiet.work, flat.work)
    assert not np.array_equal(quiet.submit, flat.submit)


def test_split_batches_by_hand():
    # 1,000 jobs of 8 GPUs under 480 GPUs: at most 60 jobs a batch, so ceil(1000 / 60) = 17
    # batches; 1000 = 17 x 58 + 14: fourteen of 59 jobs, three of 58. A batch within the bound
    # is kept; a job larger than the bound is a batch of its own.
    parent, sizes, gpus = arrivals.split_batches(np.array([1000, 10, 3, 5]),
                                                 np.array([8, 8, 1, 512]), 480)
    assert parent.tolist() == [0] * 17 + [1, 2] + [3] * 5
    assert sizes.tolist() == [59] * 14 + [58] * 3 + [10, 3] + [1] * 5
    assert gpus.tolist() == [8] * 17 + [8, 1] + [512] * 5
    kept = arrivals.split_batches(np.array([1000, 10]), np.array([8, 8]), 0)
    assert [a.tolist() for a in kept] == [[0, 1], [1000, 10], [8, 8]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 2000), st.sampled_from([1, 2, 4, 8, 16, 64, 128])),
                min_size=1, max_size=30), st.integers(1, 4000))
def test_split_batches_keeps_every_job_and_the_fewest_batches_within_the_bound(batches,
                                                                            gpu_max):
    sizes = np.array([n for n, _ in batches])
    gpus = np.array([g for _, g in batches])
    parent, out_sizes, out_gpus = arrivals.split_batches(sizes, gpus, gpu_max)
    assert (np.diff(parent) >= 0).all() and (out_gpus == gpus[parent]).all()
    assert (np.bincount(parent, weights=out_sizes, minlength=len(sizes)) == sizes).all()
    assert (out_sizes >= 1).all()
    assert (out_sizes * out_gpus <= np.maximum(gpu_max, out_gpus)).all()  # within the bound
    for index, (n, g) in enumerate(batches):
        mine = out_sizes[parent == index]
        assert mine.max() - mine.min() <= 1  # near-equal pieces
        per_piece = max(gpu_max // g, 1)
        assert len(mine) == -(-n // per_piece)  # no fewer pieces could hold them


def test_split_pieces_arrive_in_their_parents_part_outside_quiet_spells():
    profile = get_profile("seren")
    generator = _Generator(profile, 20, 3)
    model = dataclasses.replace(profile.types[0].group, gpu_max=480)
    times = np.array([-100_000, 5_000, 400_000])  # a warm-up batch and two in the window
    sizes, gpus = np.array([200, 700, 30]), np.array([8, 8, 8])  # <= 60 jobs a batch
    new_times, new_sizes, new_gpus = generator._split_batches(
        "Eval", model, times, sizes, gpus, profile.warmup_days)
    # 200 = 4 x 50; 700 in ceil(700 / 60) = 12 batches: 700 = 12 x 58 + 4
    assert new_sizes.tolist() == [50] * 4 + [59] * 4 + [58] * 8 + [30]
    assert new_times[0] == -100_000 and new_times[4] == 5_000 and new_times[16] == 400_000
    warmup = -profile.warmup_days * 86_400
    assert ((new_times[1:4] >= warmup) & (new_times[1:4] < 0)).all()
    assert ((new_times[5:16] >= 0) & (new_times[5:16] < 20 * 86_400)).all()
    assert len(set(new_times[5:16].tolist())) > 1  # their own times, not the parent's
    spells = generator.quiet
    later = np.r_[1:4, 5:16]
    inside = np.searchsorted(spells[:, 0], new_times[later], side="right") - 1
    assert not ((inside >= 0) & (new_times[later] < spells[np.maximum(inside, 0), 1])).any()


def test_seren_s_evaluation_batches_are_bounded_at_6864_gpus_and_kalos_s_are_not(monkeypatch):
    # Seren's evaluation batches are split into pieces of at most 3 x 2,288 = 6,864 GPUs
    # (profiles.SEREN_EVAL_BATCHES, chosen); Kalos's are not bounded. Generating Seren's Eval
    # jobs for 60 days (seed 2) draws batches beyond the bound, and every batch the generator
    # keeps is within it; Kalos's Eval jobs never reach the split.
    calls = []
    real = arrivals.split_batches

    def spy(sizes, gpus, gpu_max):
        out = real(sizes, gpus, gpu_max)
        calls.append((sizes * gpus, gpu_max, out[1] * out[2]))
        return out

    monkeypatch.setattr(arrivals, "split_batches", spy)
    for name in ("seren", "kalos"):
        profile = get_profile(name)
        generator = _Generator(profile, 60, 2, starts="packer")
        index = next(i for i, t in enumerate(profile.types) if t.name == "Eval")
        jobs = generator._type_jobs(index)
        assert len(jobs.gpus) > 0
        if name == "kalos":
            assert not calls[1:] and profile.types[index].group.gpu_max == 0
    assert len(calls) == 1
    drawn, gpu_max, kept = calls[0]
    assert gpu_max == 6864 == 3 * 2288
    assert drawn.max() > 6864  # the bound acts on this trace
    assert kept.max() <= 6864 and kept.sum() == drawn.sum()  # every GPU kept, within it
