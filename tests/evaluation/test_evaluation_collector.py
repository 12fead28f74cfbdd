"""The evaluation replay builds its requests and its result tables with the collector paused,
keeps the objects its rewrite leaves frozen until the tables are built, and leaves the
collector as it found it; its plans are named tuples whose ``index`` and ``count`` are the
shard's fields."""

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


def _freeze_counts(monkeypatch):
    """Frozen-object counts seen when the loop starts and when the result tables are built."""
    seen: dict[str, int] = {}
    loop, tables = Simulation.run, replay_module.EvalReplay.tables

    def spy_loop(self):
        seen["loop"] = gc.get_freeze_count()
        return loop(self)

    def spy_tables(self, frame_):
        result = tables(self, frame_)
        seen["after tables"] = gc.get_freeze_count()
        return result

    monkeypatch.setattr(Simulation, "run", spy_loop)
    monkeypatch.setattr(replay_module.EvalReplay, "tables", spy_tables)
    return seen


@pytest.mark.parametrize("mode", ["coupled", "decoupled"])
def test_the_rewrite_objects_are_frozen_through_the_loop_and_thawed_after(monkeypatch, mode):
    """The requests and trials the rewrite leaves are out of the collector's reach while the
    engine runs (never scanned), back in it once the tables are built."""
    seen = _freeze_counts(monkeypatch)
    was = gc.isenabled()
    gc.enable()
    try:
        simulate(_trace(), cluster(2), eval=mode)
        after = gc.get_freeze_count()
    finally:
        (gc.enable if was else gc.disable)()
    assert seen["loop"] > 0
    assert seen["after tables"] == 0 and after == 0


@pytest.mark.parametrize("collecting", [True, False])
def test_a_callers_own_freeze_is_left_alone_and_nothing_frozen_without_the_collector(
        monkeypatch, collecting):
    seen = _freeze_counts(monkeypatch)
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
    # frozen objects that are freed leave the count: it may only fall, never to 0 if it was not
    counts = [seen["loop"], seen["after tables"], after]
    assert all(count <= before for count in counts)
    assert all(count > 0 for count in counts) is collecting
