"""The cache of synthetic traces: generated once per key, reused, exact, safe in parallel.

Evidence that a run reads the cache is counted, not timed: the generator is wrapped in a
counter (in process), or the cache file's inode and modification time are compared before and
after a sweep (across processes).
"""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pandas as pd
import pytest

from acmesim import synth as synthetic
from acmesim.cli import main
from acmesim.core.errors import ConfigError
from acmesim.sources.synthetic import SyntheticTrace
from acmesim.synth import cache

OPTIONS = {"profile": "seren", "days": 0.25, "seed": 5, "scale": 1.0, "starts": "baseline"}


@pytest.fixture
def counted(monkeypatch):
    """The generator wrapped in a call counter (``calls`` lists the options of every call)."""
    calls: list[dict] = []
    real = synthetic.generate_trace

    def counting(**options):
        calls.append(options)
        return real(**options)

    monkeypatch.setattr(synthetic, "generate_trace", counting)
    return calls


def _load(directory: Path | str, **changes) -> pd.DataFrame:
    config = SyntheticTrace.Config(**{**OPTIONS, "cache": str(directory), **changes})
    return SyntheticTrace(config).load()


def test_the_second_load_reads_the_cache_and_gets_the_same_table(counted, tmp_path):
    first = _load(tmp_path)
    second = _load(tmp_path)
    assert len(counted) == 1  # generated once, read once
    pd.testing.assert_frame_equal(first, second)
    uncached = _load("none")
    assert len(counted) == 2  # trace.cache=none generates
    pd.testing.assert_frame_equal(uncached, second)
    assert [p.suffix for p in tmp_path.iterdir() if not p.name.startswith(".")] == [".parquet"]


def test_every_generator_option_is_part_of_the_key(counted, tmp_path):
    _load(tmp_path)
    _load(tmp_path, seed=6)
    _load(tmp_path, starts="packer")
    _load(tmp_path, days=0.2)
    _load(tmp_path, seed=6)
    assert len(counted) == 4
    assert len(list(tmp_path.glob("*.parquet"))) == 4


def test_a_code_change_changes_the_key(monkeypatch):
    before = cache.trace_key(OPTIONS)
    monkeypatch.setattr(cache, "code_digest", lambda: "another version of the code")
    assert cache.trace_key(OPTIONS) != before


def test_an_unreadable_or_foreign_cache_file_is_regenerated(counted, tmp_path):
    path = cache.cache_path(tmp_path, OPTIONS)
    path.write_bytes(b"PAR1 half a file")
    first = _load(tmp_path)
    assert len(counted) == 1 and path.stat().st_size > 100
    other = {**OPTIONS, "seed": 9}
    os.replace(cache.cache_path(tmp_path, OPTIONS), cache.cache_path(tmp_path, other))
    _load(tmp_path, seed=9)  # right name, wrong recorded key: not trusted
    assert len(counted) == 2
    pd.testing.assert_frame_equal(_load(tmp_path), first)
    assert len(counted) == 3


def test_a_failed_generation_leaves_nothing_behind(tmp_path):
    def failing() -> pd.DataFrame:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cache.cached_trace(OPTIONS, failing, tmp_path)
    assert not list(tmp_path.glob("*.parquet")) and not list(tmp_path.glob("*.tmp"))


def test_cache_settings(monkeypatch, tmp_path):
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "env"))
    assert cache.cache_dir("auto") == tmp_path / "env"
    monkeypatch.delenv(cache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir("auto") == tmp_path / "xdg" / "acmesim" / "traces"
    assert cache.cache_dir("none") is None and cache.cache_dir("") is None
    assert cache.cache_dir(str(tmp_path / "d")) == tmp_path / "d"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="cannot create the cache directory"):
        cache.cached_trace(OPTIONS, lambda: pd.DataFrame(), tmp_path / "file" / "sub")


def _slow_generation(directory: str, counter: str) -> str:
    """In a child: the cached trace of OPTIONS with a slow, counted generator."""
    import time

    from acmesim.synth.generate import generate_trace

    def generate() -> pd.DataFrame:
        with open(counter, "a") as handle:
            handle.write("generated\n")
        time.sleep(0.5)  # both children are inside cached_trace at once
        return generate_trace(**OPTIONS)

    frame = cache.cached_trace(OPTIONS, generate, Path(directory))
    return pd.util.hash_pandas_object(frame).sum().item().__str__()


def test_concurrent_processes_generate_one_key_once_and_read_a_whole_file(tmp_path):
    counter = tmp_path / "count"
    context = multiprocessing.get_context("fork")
    with context.Pool(2) as pool:
        digests = pool.starmap(_slow_generation, [(str(tmp_path / "c"), str(counter))] * 2)
    assert counter.read_text() == "generated\n"  # the second waited for the first's file
    assert digests[0] == digests[1]
    files = list((tmp_path / "c").glob("*.parquet"))
    assert len(files) == 1 and not list((tmp_path / "c").glob("*.tmp"))


def test_a_sweep_generates_once_and_its_results_equal_uncached_runs(tmp_path):
    store = tmp_path / "store"
    sweep = ["replay", "-m", "trace=synthetic", "trace.days=0.25", "trace.seed=5",
             f"trace.cache={store}", "seed=1,2", "progress=false",
             f"hydra.sweep.dir={tmp_path}/sweep"]
    assert main(sweep) == 0
    (cached,) = store.glob("*.parquet")
    stamp = (cached.stat().st_ino, cached.stat().st_mtime_ns)
    assert main([*sweep[:-1], f"hydra.sweep.dir={tmp_path}/again"]) == 0
    assert (cached.stat().st_ino, cached.stat().st_mtime_ns) == stamp  # read, not rewritten
    assert main(["replay", "trace=synthetic", "trace.days=0.25", "trace.seed=5",
                 "trace.cache=none", "seed=2", "progress=false",
                 f"hydra.run.dir={tmp_path}/plain"]) == 0
    for name in ("jobs.csv", "utilization.csv"):
        assert ((tmp_path / "again" / "1" / name).read_bytes()
                == (tmp_path / "plain" / name).read_bytes())
