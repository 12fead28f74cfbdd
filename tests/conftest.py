"""Fixtures shared by the test packages (``tests/<package>/`` mirrors ``acmesim/<package>/``).

Helper modules that tests import by name (``cli_trace``, ``cli_standins``, ``factories``,
``invariants``, ...) sit beside this file; ``pyproject.toml`` puts this directory and the
repository root (for ``calibration/``) on ``sys.path``.
"""

from __future__ import annotations

from pathlib import Path

import cli_standins
import pytest
from cli_trace import write_tiny_trace


@pytest.fixture
def standins(monkeypatch, tmp_path):
    """Stand-in engine and registries for CLI tests (``cli_standins.install``): its calls."""
    return cli_standins.install(monkeypatch, tmp_path)


@pytest.fixture
def trace(tmp_path, monkeypatch) -> Path:
    """The tiny Seren-schema trace ``tiny_seren.csv``, in the test's working directory."""
    monkeypatch.chdir(tmp_path)
    return write_tiny_trace(tmp_path / "tiny_seren.csv")
