"""``acmesim replay`` driven in-process: overrides, typed config, errors, help, skip logic."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from cli_standins import build_registries

from acmesim.cli import main
from acmesim.core.config import Choice, ReplayConfig


def replay(*args: str) -> int:
    return main(["replay", *args])


def test_defaults_replay_the_sample_and_print_a_summary(standins, capsys):
    assert replay("hydra.run.dir=out") == 0
    (config, run_dir), = standins
    defaults = ReplayConfig()
    for group in ("trace", "cluster", "scheduler", "placement", "failure", "checkpoint",
                  "recovery"):
        assert getattr(config, group).name == getattr(defaults, group).name
    assert (config.mode, config.seed) == (defaults.mode, defaults.seed)
    assert run_dir == Path("out").resolve()
    text = capsys.readouterr().out
    assert "trace 'sample'" in text and "GPU utilization" in text
    assert "job type" in text and "Pretrain" in text and f"results in {run_dir}" in text


def test_overrides_become_a_typed_replay_config(standins):
    code = replay("scheduler=easy", "failure=weibull", "failure.shape=1.5", "failure.kinds=[gpu]",
                  "cluster=kalos", "cluster.nodes=3", "mode=recorded", "seed=7",
                  "utilization_interval=60", "hydra.run.dir=out")
    assert code == 0
    config = standins[0][0]
    assert config.scheduler == Choice("easy_backfill", {})
    assert config.failure.name == "weibull"
    assert config.failure.options == {"shape": 1.5, "mtbf_hours": 100.0, "kinds": ["gpu"]}
    assert config.cluster == Choice("kalos", {"nodes": 3, "gpus_per_node": 8})
    assert (config.mode, config.seed, config.utilization_interval) == ("recorded", 7, 60.0)
    assert config.run_id  # names the run by its overrides
    assert "seed=7" in config.run_id


def test_trace_path_alone_selects_the_file_source(standins, tmp_path):
    (tmp_path / "t.csv").write_text("x\n")
    assert replay("trace.path=t.csv", "trace.format=acme", "hydra.run.dir=out") == 0
    trace = standins[0][0].trace
    assert trace.name == "file"
    assert trace.options["path"] == str(tmp_path / "t.csv")
    assert trace.options["format"] == "acme"
    assert trace.options["errors"] == "raise"


def test_relative_failure_path_is_taken_from_the_start_directory(standins, tmp_path):
    (tmp_path / "faults").mkdir()
    assert replay("failure=trace", "failure.path=faults/f.csv", "trace.path=t.csv",
                  "hydra.run.dir=elsewhere/run") == 0
    config = standins[0][0]
    assert config.failure == Choice("trace", {"path": str(tmp_path / "faults" / "f.csv")})
    assert config.trace.options["path"] == str(tmp_path / "t.csv")


def test_absolute_failure_path_is_kept(standins, tmp_path):
    absolute = tmp_path.parent / "shared" / "f.csv"
    assert replay("failure=trace", f"failure.path={absolute}", "hydra.run.dir=out") == 0
    assert standins[0][0].failure.options["path"] == str(absolute)


def test_synthetic_trace_options(standins):
    assert replay("trace=synthetic", "trace.profile=kalos", "trace.days=30", "trace.seed=1",
                  "hydra.run.dir=out") == 0
    assert standins[0][0].trace == Choice("synthetic", {"profile": "kalos", "days": 30.0,
                                                        "seed": 1, "scale": 1.0,
                                                        "starts": "baseline", "load": 1.0,
                                                        "cache": "auto"})


BAD = [
    (["scheduler=bogus"], ["unknown scheduler 'bogus'", "easy_backfill", "fifo", "qssf"]),
    (["-m", "scheduler=fifo,nope"], ["unknown scheduler 'nope'", "fifo"]),
    (["scheduler=fifo", "-m"], ["overrides after a flag are not read: hydra.run.dir=out"]),
    (["scheduler.depth=3"], ["no option 'depth'"]),
    (["failure=weibull", "failure.shap=1"], ["no option 'shap'", "mtbf_hours", "shape"]),
    (["failure=weibull", "failure.shape=abc"], ["'shape'", "float", "'abc'"]),
    (["cluster.nodes=many"], ["'nodes'", "int", "'many'"]),
    (["trace.days=3"], ["trace 'sample' has no option 'days'"]),
    (["mode=fast"], ["mode must be one of recorded, scheduled", "'fast'"]),
    (["seed=abc"], ["seed must be int"]),
    (["sched=fifo"], ["unknown key 'sched'", "scheduler", "seed"]),
    (["+extra=1"], ["unknown key 'extra'"]),
    (["scheduler=(fifo"], ["scheduler=(fifo"]),
]


@pytest.mark.parametrize(("args", "expected"), BAD)
def test_bad_overrides_fail_with_one_clean_message(standins, capsys, args, expected):
    assert replay(*args, "hydra.run.dir=out") != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for text in expected:
        assert text in err
    assert len(err.strip().splitlines()) == 1
    assert standins == []  # nothing ran


def test_missing_file_path_is_a_clean_error(standins, capsys):
    assert replay("trace=file", "hydra.run.dir=out") == 1
    err = capsys.readouterr().err
    assert "trace.path" in err and "Traceback" not in err
    summary = pd.read_csv("out/summary.csv")
    assert "trace.path" in summary.loc[0, "error"]


def test_help_lists_every_registered_option(standins, capsys, monkeypatch):
    registries = build_registries()
    registries["scheduler"].register("brand_new")(type("BrandNew", (), {}))
    monkeypatch.setattr("acmesim.cli.hydra.load_registries", lambda spec=None: registries)
    assert replay("--help") == 0
    text = capsys.readouterr().out
    for group in registries:
        assert f"  {group}:" in text
    assert "brand_new" in text and "easy_backfill (alias easy)" in text
    assert "shape=0.8" in text and "profile=seren" in text and "kinds=[gpu,node]" in text
    assert "path=(required)" in text
    assert "acmesim replay -m" in text
    # the new plug-in is a valid Hydra option at once
    assert replay("scheduler=brand_new", "hydra.run.dir=out") == 0


def test_failed_run_is_not_skipped_and_exits_nonzero(standins, capsys):
    assert replay("seed=13", "hydra.run.dir=out") == 1
    assert "unlucky seed" in capsys.readouterr().err
    assert replay("seed=13", "hydra.run.dir=out") == 1
    assert len(standins) == 2


# Skipping complete runs, and the wall clock in result files, are tested against the real
# engine (which writes wall_time and can be interrupted) in test_run_lifecycle.py.
