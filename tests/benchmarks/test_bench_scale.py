"""The pieces of ``benchmarks/bench_scale.py`` that decide what is compared and what fails."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
from factories import frame, job

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


def test_concatenated_seeds_get_distinct_job_and_user_ids():
    one = frame([job(0, 1, user="u1"), job(5, 1, user="u2")])
    two = frame([job(0, 2, user="u1")])
    table = SCALE.concatenated([one, two])
    assert table["job_id"].tolist() == ["j0-0", "j1-0", "j0-1"]
    assert table["user"].tolist() == ["u1-0", "u2-0", "u1-1"]
    assert table["run_time"].tolist() == [1.0, 1.0, 2.0]


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


def test_compare_names_the_first_jobs_whose_start_differs(tmp_path):
    ids = ["a", "b", "c"]
    _store(tmp_path / "acme.npz", [0, 1, 2], [0.0, 5.0, 7.0], [[0], [1, 2], [0]])
    _store(tmp_path / "same.npz", [0, 1, 2], [0.0, 5.0, 7.0], [[0], [1, 2], [0]])
    _store(tmp_path / "late.npz", [0, 1, 2], [0.0, 5.0, 7.5], [[0], [1, 2], [0]])
    _store(tmp_path / "moved.npz", [0, 1, 2], [0.0, 5.0, 7.0], [[0], [2, 1], [0]])
    assert BENCH.compare(tmp_path / "acme.npz", tmp_path / "same.npz", ids) == []
    late = BENCH.compare(tmp_path / "acme.npz", tmp_path / "late.npz", ids)
    assert late[0].startswith("START TIMES DIFFER for 1 of 3 jobs")
    assert late[1] == "  #2 job 'c': reference 7.5 s, acmesim 7.0 s"
    moved = BENCH.compare(tmp_path / "acme.npz", tmp_path / "moved.npz", ids)
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
