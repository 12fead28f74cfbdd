"""Fixtures shared by the test packages (``tests/<package>/`` mirrors ``acmesim/<package>/``).

Helper modules that tests import by name (``cli_trace``, ``cli_standins``, ``factories``,
``invariants``, ...) sit beside this file; ``pyproject.toml`` puts this directory and the
repository root (for ``calibration/``) on ``sys.path``.

Synthetic traces are cached in a directory of this session only: without it, replays of
``trace=synthetic`` would fill (and read) the user's own trace cache (``acmesim/synth/cache.py``);
subprocesses inherit the variable.
"""

from __future__ import annotations

import os
from pathlib import Path

import cli_standins
import pytest
from cli_trace import write_tiny_trace

from acmesim.synth.cache import CACHE_ENV


@pytest.fixture(autouse=True, scope="session")
def _session_trace_cache(tmp_path_factory: pytest.TempPathFactory):
    """Point ``trace.cache=auto`` at a fresh directory for the whole session."""
    previous = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.mktemp("trace_cache"))
    yield
    if previous is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = previous


@pytest.fixture
def standins(monkeypatch, tmp_path):
    """Stand-in engine and registries for CLI tests (``cli_standins.install``): its calls."""
    return cli_standins.install(monkeypatch, tmp_path)


@pytest.fixture
def trace(tmp_path, monkeypatch) -> Path:
    """The tiny Seren-schema trace ``tiny_seren.csv``, in the test's working directory."""
    monkeypatch.chdir(tmp_path)
    return write_tiny_trace(tmp_path / "tiny_seren.csv")
