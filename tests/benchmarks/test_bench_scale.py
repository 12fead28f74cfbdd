"""The pieces of ``benchmarks/bench_scale.py`` that decide what is compared and what fails."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


SCALE = _load("scale_trace")
BENCH = _load("bench_scale")


def test_scaled_cluster_has_k_times_the_nodes_under_the_same_switches():
    base, big = SCALE.scaled_spec(1), SCALE.scaled_spec(3)
    assert big.nodes == 3 * base.nodes and big.cpu_nodes == 3 * base.cpu_nodes
    assert (big.nodes_per_leaf, big.leaves_per_spine) == (base.nodes_per_leaf,
                                                          base.leaves_per_spine)
    assert big.startup == base.startup


def _store(path, rows, starts, nodes):
    flat, offsets = BENCH._flat_nodes(nodes)
    np.savez(path, rows=np.asarray(rows), starts=np.asarray(starts, dtype=float), nodes=flat,
             offsets=offsets)


def test_node_cells_parse_to_the_same_arrays_as_node_lists():
    cells = pd.Series(["n0003;n0004", "", "n0010", "n12583;n0000;n0007"], dtype="str")
    flat, offsets = BENCH._flat_node_names(cells)
    want_flat, want_offsets = BENCH._flat_nodes([[3, 4], [], [10], [12583, 0, 7]])
    assert flat.dtype == want_flat.dtype and np.array_equal(flat, want_flat)
    assert np.array_equal(offsets, want_offsets)


def test_compare_names_the_first_jobs_whose_start_differs(tmp_path):
    ids = ["a", "b", "c"]
    _store(tmp_path / "acme.npz", [0, 1, 2], [0.0, 5.0, 7.0], [[0], [1, 2], [0]])
    _store(tmp_path / "same.npz", [0, 1, 2], [0.0, 5.0, 7.0], [[0], [1, 2], [0]])
    _store(tmp_path / "late.npz", [0, 1, 2], [0.0, 5.0, 7.5], [[0], [1, 2], [0]])
    _store(tmp_path / "moved.npz", [0, 1, 2], [0.0, 5.0, 7.0], [[0], [2, 1], [0]])
    assert BENCH.compare(tmp_path / "acme.npz", tmp_path / "same.npz", lambda: ids) == []
    late = BENCH.compare(tmp_path / "acme.npz", tmp_path / "late.npz", lambda: ids)
    assert late[0].startswith("START TIMES DIFFER for 1 of 3 jobs")
    assert late[1] == "  #2 job 'c': reference 7.5 s, acmesim 7.0 s"
    moved = BENCH.compare(tmp_path / "acme.npz", tmp_path / "moved.npz", lambda: ids)
    assert moved == ["node assignments differ (start times alone cannot see the leaf and "
                     "spine rules)"]


def test_a_child_reports_its_own_peak_memory_not_its_parents():
    import subprocess

    ballast = bytearray(300 * 2**20)  # this process's high-water mark, 300 MB above the child's
    for offset in range(0, len(ballast), 4096):
        ballast[offset] = 1
    code = "import bench_scale; print(bench_scale._peak_rss_mb())"
    done = subprocess.run([sys.executable, "-c", code], cwd=BENCHMARKS, capture_output=True,
                          text=True, check=True)
    assert float(done.stdout) < 200
    del ballast


DAYS = 0.5  # a short window: the generator's real path in well under a second


def test_the_cache_gives_back_the_very_generated_trace(tmp_path, capsys):
    from acmesim.synth import generate_trace
    from acmesim.trace.loaders.parquet import read_parquet_trace

    path = SCALE.ensure_cached(2, DAYS, 3, tmp_path)
    assert "generated" in capsys.readouterr().out
    back = read_parquet_trace(path)[0]
    pd.testing.assert_frame_equal(back, generate_trace("seren", DAYS, 3, scale=2,
                                                       starts="packer"))
    assert SCALE.ensure_cached(2, DAYS, 3, tmp_path) == path  # taken, not regenerated
    assert "generated" not in capsys.readouterr().out


@pytest.mark.parametrize("change", [{"profile": "kalos"}, {"days": 2.0}, {"seed": 2},
                                    {"scale": 4}, {"starts": "baseline"}])
def test_every_generator_option_is_in_the_key(tmp_path, change):
    options = SCALE.trace_options(2, DAYS, 1)
    other = {**options, **change}
    assert SCALE.cache_file(tmp_path, other) != SCALE.cache_file(tmp_path, options)
    path = SCALE.ensure_cached(2, DAYS, 1, tmp_path)
    assert SCALE.is_current(path, options)
    assert not SCALE.is_current(path, other)  # a file renamed to another key is not taken


def test_a_truncated_cache_file_is_not_taken_and_is_regenerated(tmp_path, capsys):
    path = SCALE.ensure_cached(1, DAYS, 1, tmp_path)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])  # as a write cut short would leave it
    options = SCALE.trace_options(1, DAYS, 1)
    assert not SCALE.is_current(path, options)
    capsys.readouterr()
    SCALE.ensure_cached(1, DAYS, 1, tmp_path)
    assert "generated" in capsys.readouterr().out
    assert path.read_bytes() == whole


def test_a_file_of_another_version_of_the_generator_is_stale(tmp_path):
    import json

    import pyarrow.parquet as pq

    path = SCALE.ensure_cached(1, DAYS, 1, tmp_path)
    table = pq.read_table(path)
    meta = json.loads(table.schema.metadata[SCALE.META_FIELD])
    assert "synth/generate.py" in meta["modules"] and "sim/simulation.py" in meta["modules"]
    meta["digest"] = SCALE.source_digest(meta["modules"][1:])  # as if one module had changed
    table = table.replace_schema_metadata({**table.schema.metadata,
                                           SCALE.META_FIELD: json.dumps(meta).encode()})
    pq.write_table(table, path)
    assert not SCALE.is_current(path, SCALE.trace_options(1, DAYS, 1))


def test_the_replay_read_from_the_file_matches_the_reference_and_reading_is_timed_apart(
        tmp_path):
    import json
    import subprocess

    path = SCALE.ensure_cached(2, DAYS, 3, tmp_path)
    rows = len(pd.read_parquet(path, columns=["job_id"]))
    out = {}
    for kind in ("acmesim", "reference", "read"):
        extra = ["--out", str(tmp_path / f"{kind}.npz")] if kind != "read" else []
        done = subprocess.run([sys.executable, str(BENCHMARKS / "bench_scale.py"), "--child",
                               kind, "--trace", str(path), "--scales", "2", *extra],
                              capture_output=True, text=True, check=True)
        out[kind] = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["read"]["rows"] == rows
    assert 0 < out["read"]["cpu_s"]
    assert out["acmesim"]["jobs"] == out["reference"]["jobs"] > 0
    assert 0 < out["acmesim"]["loop_cpu_s"] < out["acmesim"]["cpu_s"]
    assert BENCH.compare(tmp_path / "acmesim.npz", tmp_path / "reference.npz",
                         lambda: BENCH._job_ids(path)) == []


def test_growth_is_of_the_replay_per_event_and_per_job_against_the_first_scale():
    def row(scale, cpu, read, events, jobs, ref_cpu=None, loop=None):
        acme = {"cpu_s": cpu, "events": events, "jobs": jobs}
        if loop is not None:
            acme["loop_cpu_s"] = loop
        out = {"scale": scale, "acmesim": acme, "read": {"cpu_s": read}}
        if ref_cpu is not None:
            out["reference"] = {"cpu_s": ref_cpu, "events": events}
        return out

    rows = [row(1, 5.0, 1.0, 1_000_000, 250_000, 1.0, 3.0),
            row(44, 130.0, 10.0, 30_000_000, 10_000_000, 60.0, 108.0),
            row(10, 21.0, 1.0, 10_000_000, 2_500_000)]
    first, big, unchecked = BENCH.growth(rows)
    assert first["event"] == pytest.approx(4.0) and first["event_x"] == pytest.approx(1.0)
    assert big["event"] == pytest.approx(4.0) and big["event_x"] == pytest.approx(1.0)
    assert big["job"] == pytest.approx(12.0) and big["job_x"] == pytest.approx(12.0 / 16.0)
    assert big["ref_event"] == pytest.approx(2.0) and big["ref_event_x"] == pytest.approx(2.0)
    assert big["loop_event"] == pytest.approx(3.6) and big["loop_event_x"] == pytest.approx(1.2)
    assert unchecked["loop_event"] is None and unchecked["loop_event_x"] is None
    assert unchecked["event_x"] == pytest.approx(0.5)
    assert unchecked["ref_event"] is None and unchecked["ref_event_x"] is None


def test_a_scheduler_ratio_is_the_median_of_its_pairs_with_reading_taken_off():
    # (FIFO, other) CPU seconds of three alternated pairs, 1 s of reading in every run
    median, ratios = BENCH.pair_ratio([(5.0, 13.0), (4.0, 10.0), (6.0, 21.0)], 1.0)
    assert ratios == [pytest.approx(3.0), pytest.approx(3.0), pytest.approx(4.0)]
    assert median == pytest.approx(3.0)
    assert BENCH.pair_ratio([(3.0, 5.0)], 1.0) == (pytest.approx(2.0), [pytest.approx(2.0)])
