"""The layer contract of pyproject.toml holds: every import in acmesim points down."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")
"""import-linter's command, installed beside this Python by the test extra."""


def test_every_import_points_down():
    done = subprocess.run([str(LINT), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1500:]
    assert "0 broken" in done.stdout
