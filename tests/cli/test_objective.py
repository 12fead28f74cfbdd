"""``objective=...``: what the replay task returns to a sweeper, and a real Optuna sweep over it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml
from cli_trace import write_tiny_trace

from acmesim.cli import main
from acmesim.cli.objective import Metric, Objective
from acmesim.core.errors import ConfigError
from acmesim.results.rundirs import find_runs, read_summary


def hand_run(run_dir: Path) -> Path:
    """A run directory with hand-made tables: Eval queue delays 0, 10, 20, 30 s."""
    run_dir.mkdir()
    pd.DataFrame({"type": ["Eval", "Eval", "Pretrain", "Eval", "Eval"],
                  "queue_delay": [0.0, 10.0, 500.0, 20.0, 30.0]}).to_csv(
        run_dir / "jobs.csv", index=False)
    pd.DataFrame({"queue_delay_mean": [7.5], "jct_mean": [99.0]}).to_csv(
        run_dir / "summary.csv", index=False)
    return run_dir


def test_a_summary_column_is_read_from_summary_csv(tmp_path):
    assert Metric.parse("queue_delay_mean").value(hand_run(tmp_path / "r")) == 7.5


@pytest.mark.parametrize(("spec", "expected"), [
    ("Eval:queue_delay_mean", 15.0), ("Eval:queue_delay_max", 30.0),
    ("Eval:queue_delay_p50", 15.0), ("Eval:queue_delay_p90", 27.0),
    ("Eval:queue_delay_count", 4.0), ("all:queue_delay_max", 500.0),
    ("Pretrain:queue_delay_median", 500.0),
])
def test_a_per_type_statistic_is_computed_over_that_types_jobs(tmp_path, spec, expected):
    assert Metric.parse(spec).value(hand_run(tmp_path / "r")) == pytest.approx(expected)


@pytest.mark.parametrize(("spec", "named"), [
    ("queue_delay", "valid columns: seed"),
    ("Evaluation:queue_delay_p90", "valid types: Eval, Pretrain"),
    ("Eval:queue_dela_p90", "valid columns: gpu_num"),
    ("Eval:queue_delay_p190", "unknown statistic 'p190'"),
    ("Eval:queue_delay_average", "unknown statistic 'average'"),
])
def test_a_bad_objective_names_the_valid_choices(spec, named):
    with pytest.raises(ConfigError, match=named):
        Metric.parse(spec)


def test_a_violated_bound_adds_the_penalty_in_the_objectives_direction(tmp_path):
    run = hand_run(tmp_path / "r")
    settings = {"objective": "Eval:queue_delay_mean", "objective_constraint":
                "Pretrain:queue_delay_max", "objective_constraint_max": 400.0,
                "objective_penalty": 2.0}
    assert Objective.from_settings(settings).value(run) == 15.0 + 2.0 * 100.0
    maximize = {**settings, "objective_direction": "maximize"}
    assert Objective.from_settings(maximize).value(run) == 15.0 - 2.0 * 100.0
    within = {**settings, "objective_constraint_max": 600.0}
    assert Objective.from_settings(within).value(run) == 15.0


def test_a_bound_without_its_value_is_refused():
    with pytest.raises(ConfigError, match="go together"):
        Objective.from_settings({"objective": "jct_mean", "objective_constraint": "jct_p99"})


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return write_tiny_trace(tmp_path / "tiny.csv")


BASE = ["trace.path=tiny.csv", "cluster=tiny", "progress=false"]


def test_an_unknown_objective_stops_the_command_before_any_run(tiny, capsys):
    code = main(["replay", *BASE, "objective=queue_delay", "hydra.run.dir=run"])
    assert code == 1
    err = capsys.readouterr().err
    assert "'queue_delay' is not a numeric summary.csv column" in err
    assert "queue_delay_mean" in err
    assert not Path("run").exists()


def test_a_single_run_prints_its_objective_from_its_own_files(tiny, capsys):
    assert main(["replay", *BASE, "objective=Eval:queue_delay_max", "hydra.run.dir=run"]) == 0
    jobs = pd.read_csv("run/jobs.csv")
    expected = jobs.loc[jobs["type"] == "Eval", "queue_delay"].max()
    assert f"objective (minimize Eval:queue_delay_max) = {expected:.6g}" in capsys.readouterr().out


def test_an_objective_of_a_type_the_run_lacks_fails_the_run(tiny, capsys):
    assert main(["replay", *BASE, "objective=MLLM:jct_mean", "hydra.run.dir=run"]) == 1
    assert "the run has no MLLM jobs" in capsys.readouterr().err


def test_optuna_tunes_the_objective_not_the_exit_code(tiny, capsys):
    pytest.importorskip("optuna")
    pytest.importorskip("hydra_plugins.hydra_optuna_sweeper")
    code = main(["replay", "-m", "hydra/sweeper=optuna", "hydra.sweeper.n_trials=4",
                 "hydra.sweeper.sampler.seed=1", *BASE, "cluster.nodes=choice(2,3,5)",
                 "objective=jct_mean", "hydra.sweep.dir=sweep"])
    assert code == 0
    runs = find_runs(Path("sweep"))
    values = [read_summary(run)["jct_mean"] for run in runs]
    assert len(runs) == 4 and len(set(values)) > 1  # the trials really differ
    best = yaml.safe_load(Path("sweep/optimization_results.yaml").read_text())
    assert best["best_value"] == pytest.approx(min(values))
    assert best["best_value"] > 0


def test_a_direction_disagreeing_with_the_sweepers_is_refused(tiny, capsys):
    pytest.importorskip("hydra_plugins.hydra_optuna_sweeper")
    code = main(["replay", "-m", "hydra/sweeper=optuna", "hydra.sweeper.n_trials=1",
                 "hydra.sweeper.direction=maximize", *BASE, "cluster.nodes=choice(2,3)",
                 "objective=jct_mean", "objective_direction=minimize", "hydra.sweep.dir=sweep"])
    assert code == 1
    assert "they must agree" in capsys.readouterr().err


def test_the_tuning_experiments_pareto_front_keeps_only_undominated_trials():
    import importlib.util
    path = Path(__file__).resolve().parents[2] / "experiments" / "tuning" / "pareto.py"
    spec = importlib.util.spec_from_file_location("tuning_pareto", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import numpy as np
    points = np.array([[0, 10], [1, 5], [2, 6], [3, 1], [3, 1], [4, 4]], dtype=float)
    assert module.pareto_front(points).tolist() == [True, True, False, True, True, False]
    objective = module.tuning_objective()
    assert objective.metric.spec == "Eval:queue_delay_p90"
    assert objective.constraint.spec == "Pretrain:queue_delay_p99"


def test_the_tuning_experiment_config_runs_and_pareto_reads_its_trials(tiny, capsys):
    pytest.importorskip("hydra_plugins.hydra_optuna_sweeper")
    experiment = Path(__file__).resolve().parents[2] / "experiments" / "tuning"
    code = main(["replay", "-m", "--config-dir", str(experiment), "--config-name", "tune",
                 "hydra.sweeper.n_trials=2", "trace.path=tiny.csv", "hydra.sweep.dir=sweep"])
    assert code == 0
    import importlib.util
    spec = importlib.util.spec_from_file_location("tuning_pareto", experiment / "pareto.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["sweep"]) == 0
    table = pd.read_csv("sweep/trials.csv")
    best = yaml.safe_load(Path("sweep/optimization_results.yaml").read_text())
    assert len(table) == 2 and 0.2 <= table["quota"].min() <= table["quota"].max() <= 0.95
    assert best["best_value"] == pytest.approx(table["objective"].min())
    assert Path("sweep/pareto.png").is_file()
