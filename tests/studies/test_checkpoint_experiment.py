"""The checkpointing experiment script runs end to end on a tiny sweep, reproducibly."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "checkpointing" / "run.py"
TINY = ["models_b=[7,123]", "gpus=[32,1024]", "intervals_min=[30]", "replications=40",
        "pool_size=300", "recoveries=[manual,automatic]"]


def load_script():
    spec = importlib.util.spec_from_file_location("checkpointing_run", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tiny_sweep_writes_reproducible_results_and_figures(tmp_path, capsys):
    script = load_script()
    assert script.main([*TINY, f"out_dir={tmp_path}"]) == 0
    assert "overhead ratio" in capsys.readouterr().out
    assert (tmp_path / "ettr_vs_gpus.png").stat().st_size > 1000
    assert (tmp_path / "ettr_vs_interval.png").stat().st_size > 1000
    again = script.sweep(script.load_config(TINY))
    script.write_results(again, tmp_path / "again.csv")
    assert (tmp_path / "again.csv").read_bytes() == (tmp_path / "results.csv").read_bytes()
    frame = pd.read_csv(tmp_path / "results.csv")
    # 123B does not fit 32 GPUs: 3 (model, GPUs) jobs x 2 policies x 2 modes x 2 x 2 capacities.
    assert len(frame) == 3 * 2 * 2 * 2 * 2
    assert frame.ettr.between(0, 1).all()
    big = frame[(frame.model_b == 123) & (frame.interval_min == 30) & (frame.recovery == "manual")
                & (frame.capacity == "idle")].set_index("mode")
    assert big.ettr["async"] > big.ettr["sync"]
