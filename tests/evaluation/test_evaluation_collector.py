"""The evaluation replay builds its requests and its result tables with the collector paused,
moves the objects its rewrite leaves to the collector's oldest generation unscanned, and
leaves the collector as it found it; its plans are named tuples whose ``index`` and
``count`` are the shard's fields."""

from __future__ import annotations

import gc

import pytest
from factories import cluster, frame, job

import acmesim.evaluation.replay as replay_module
from acmesim.evaluation.plan import Shard, Trial
from acmesim.run import simulate
from acmesim.sim.simulation import Simulation


def _trace():
    """Two Eval bursts and one other job: requests to plan and tables to build."""
    rows = [job(0, 600, 1, type="Eval", user="u1"), job(0, 900, 1, type="Eval", user="u1"),
            job(10, 1200, 2, type="Eval", user="u2"), job(5, 3000, 8, type="SFT")]
    return frame(rows)


@pytest.mark.parametrize("collecting", [True, False])
def test_requests_and_tables_are_built_with_the_collector_paused(monkeypatch, collecting):
    seen: dict[str, bool] = {}
    rewrite, tables = replay_module.EvalReplay._rewrite, replay_module.replay_tables

    def spy_rewrite(self, jobs, spec):
        seen["rewrite"] = gc.isenabled()
        return rewrite(self, jobs, spec)

    def spy_tables(*args):
        seen["tables"] = gc.isenabled()
        return tables(*args)

    monkeypatch.setattr(replay_module.EvalReplay, "_rewrite", spy_rewrite)
    monkeypatch.setattr(replay_module, "replay_tables", spy_tables)
    was = gc.isenabled()
    (gc.enable if collecting else gc.disable)()
    try:
        result = simulate(_trace(), cluster(2), eval="decoupled")
        after = gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
    assert seen == {"rewrite": False, "tables": False}
    assert after is collecting
    assert result.summary["eval_requests"] == 2


def test_a_shard_index_and_count_are_its_fields():
    shard = Shard("gsm8k", 2, 5, 1.5, 4.0)
    assert (shard.index, shard.count, shard.label, shard.gpu_work_s) == (2, 5, "gsm8k[3/5]", 5.5)
    trial = Trial("t000", (shard, Shard("mmlu", 0, 1, 0.5, 1.0)), 1)
    assert (trial.prep_s, trial.inference_s, trial.label) == (2.0, 5.0, "gsm8k[3/5];mmlu")


def _in_oldest_generation(obj) -> bool:
    """Whether the collector keeps ``obj`` in its oldest generation."""
    return any(o is obj for o in gc.get_objects(generation=2))


def _seen_at_loop_start(monkeypatch) -> dict:
    """The replay's first request's generation and the frozen count when the loop starts."""
    seen: dict = {}
    rewrite, loop = replay_module.EvalReplay._rewrite, Simulation.run

    def spy_rewrite(self, jobs, spec):
        seen["replay"] = self
        return rewrite(self, jobs, spec)

    def spy_loop(self):
        request = seen["replay"].requests[0]
        seen["oldest"], seen["frozen"] = _in_oldest_generation(request), gc.get_freeze_count()
        return loop(self)

    monkeypatch.setattr(replay_module.EvalReplay, "_rewrite", spy_rewrite)
    monkeypatch.setattr(Simulation, "run", spy_loop)
    return seen


@pytest.mark.parametrize("mode", ["coupled", "decoupled"])
def test_the_rewrite_objects_go_to_the_oldest_generation_unscanned(monkeypatch, mode):
    """What the rewrite leaves (requests, trials) is in the collector's oldest generation when
    the engine runs, moved there without a collection, and nothing stays frozen."""
    seen = _seen_at_loop_start(monkeypatch)
    was = gc.isenabled()
    gc.enable()
    try:
        simulate(_trace(), cluster(2), eval=mode)
        after = gc.get_freeze_count()
    finally:
        (gc.enable if was else gc.disable)()
    assert seen["oldest"] and seen["frozen"] == 0 and after == 0


def test_a_rewrite_without_its_tables_leaves_nothing_frozen():
    """A run that fails after the rewrite (here: never asks for the tables) leaves the
    collector as it was: nothing frozen, so later runs are not changed by it."""
    was = gc.isenabled()
    gc.enable()
    try:
        replay_module.EvalReplay(None).rewrite(_trace(), cluster(2))
        assert gc.get_freeze_count() == 0
    finally:
        (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("collecting", [True, False])
def test_a_callers_own_freeze_is_left_alone_and_nothing_moved_without_the_collector(
        monkeypatch, collecting):
    seen = _seen_at_loop_start(monkeypatch)
    was = gc.isenabled()
    (gc.enable if collecting else gc.disable)()
    if collecting:
        gc.freeze()  # the caller's own
    before = gc.get_freeze_count()
    try:
        simulate(_trace(), cluster(2), eval="decoupled")
        after = gc.get_freeze_count()
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()
    assert not seen["oldest"]  # nothing moved: the caller's freeze, or the collector off
    # frozen objects that are freed leave the count: it may only fall, never to 0 if it was not
    assert seen["frozen"] <= before and after <= before
    assert (seen["frozen"] > 0 and after > 0) is collecting
