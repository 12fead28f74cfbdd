"""The one-line notes for settings that cannot change a run (seed, checkpoint, recovery)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from cli_trace import write_tiny_trace

from acmesim.cli import main
from acmesim.cli.no_effect import no_effect_notes
from acmesim.core.config import Choice, ReplayConfig


def config(**groups: str) -> ReplayConfig:
    return dataclasses.replace(ReplayConfig(), **{k: Choice(v) for k, v in groups.items()})


@pytest.mark.parametrize(("checkpoint", "noted"), [
    ("young", True), ("daly", True), ("optimal", True), ("none", True), ("fixed", False)])
def test_only_failure_driven_checkpoint_policies_are_noted_without_failures(checkpoint, noted):
    notes = no_effect_notes(config(checkpoint=checkpoint), ["checkpoint"])
    assert bool(notes) is noted
    if noted:
        assert f"checkpoint={checkpoint} cannot change the results" in notes[0]


def test_hot_spares_change_capacity_so_they_are_not_noted():
    assert no_effect_notes(config(recovery="hot_spare"), ["recovery"]) == []
    assert "recovery=manual" in no_effect_notes(config(recovery="manual"), ["recovery"])[0]


def test_with_a_failure_model_nothing_is_noted():
    given = ["seed", "checkpoint", "recovery"]
    assert no_effect_notes(config(failure="exponential", checkpoint="young"), given) == []
    assert len(no_effect_notes(config(checkpoint="young"), given)) == 3


def test_an_evaluation_mode_is_noted_only_in_a_recorded_replay():
    recorded = dataclasses.replace(config(eval="decoupled"), mode="recorded")
    notes = no_effect_notes(recorded, ["eval", "eval.prior_packing"])
    assert len(notes) == 1 and "eval=decoupled cannot change the results" in notes[0]
    assert no_effect_notes(config(eval="decoupled"), ["eval"]) == []
    assert no_effect_notes(dataclasses.replace(config(failure="exponential", eval="coupled"),
                                               mode="recorded"), ["eval"])[0].startswith("note")


def test_only_given_keys_are_noted():
    assert no_effect_notes(config(checkpoint="young"), ["scheduler"]) == []
    assert len(no_effect_notes(config(), ["seed"])) == 1


def test_a_seed_sweep_on_a_file_trace_says_so_once_and_the_runs_are_identical(tmp_path,
                                                                               monkeypatch,
                                                                               capsys):
    monkeypatch.chdir(tmp_path)
    write_tiny_trace(tmp_path / "tiny.csv")
    from acmesim.cli.commands import replay_objective

    monkeypatch.setattr(replay_objective, "NOTED", set())
    assert main(["replay", "-m", "trace.path=tiny.csv", "cluster=tiny", "seed=1,2",
                 "progress=false", "hydra.sweep.dir=sweep"]) == 0
    out = capsys.readouterr().out
    assert out.count("note: seed cannot change the results") == 1
    first, second = (Path("sweep", n, "jobs.csv").read_bytes() for n in ("0", "1"))
    assert first == second  # the note is true
