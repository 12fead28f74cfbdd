"""A run that loads its own trace frees the input table before the event loop.

At scale the input table is the largest thing in memory (36 M rows at 44x Seren: about 5 GB), and
once the engine's job table is built nothing but the summary's ``gpu_util`` sums reads it.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from factories import cluster, frame, job

import acmesim.run.lifecycle as lifecycle
from acmesim.run import simulate
from acmesim.sim.extension import Extension
from acmesim.trace.loaders.parquet import write_parquet


class SeesInput(Extension):
    """Records, at the first arrival (inside the loop), whether the loaded table is alive."""

    def __init__(self, ref: list[weakref.ref]) -> None:
        self.ref = ref
        self.alive: list[bool] = []

    def on_arrival(self, job) -> None:
        if not self.alive:
            gc.collect()
            self.alive.append(self.ref[0]() is not None)


@pytest.fixture
def traced(tmp_path, monkeypatch):
    """A small Parquet trace with ``gpu_util``, and the weak reference to the table the run
    loads from it (filled in when the run loads it)."""
    jobs = frame([job(0, 100, gpus=1), job(0, 10, gpus=8), job(5, 40, gpus=2)])
    jobs["gpu_util"] = [0.25, 1.0, np.nan]
    path = tmp_path / "trace.parquet"
    write_parquet(jobs, path)
    ref: list[weakref.ref] = []
    real = lifecycle._load_trace

    def load(config):
        table = real(config)
        ref.append(weakref.ref(table))
        return table

    monkeypatch.setattr(lifecycle, "_load_trace", load)
    return path, ref


def test_the_loaded_table_is_gone_when_the_loop_runs(traced):
    path, ref = traced
    probe = SeesInput(ref)
    result = simulate(path, cluster(nodes=2), "fifo", mode="recorded", extensions=[probe])
    assert probe.alive == [False]
    assert result.summary["simulated_jobs"] == 3


def test_the_summary_still_reads_gpu_util_from_the_freed_table(traced):
    path, _ = traced
    result = simulate(path, cluster(nodes=2), "fifo", mode="recorded")
    # job 0: 100 GPU-s at 25 % -> 25 busy, 75 idle; job 1: 80 GPU-s busy; job 2 has no util
    assert result.summary["gpu_util_jobs"] == 2
    assert result.summary["busy_gpu_time"] == pytest.approx(105.0)
    assert result.summary["idle_gpu_time"] == pytest.approx(75.0)
