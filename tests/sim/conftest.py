"""Tests in this folder import the shared helpers of ``tests/`` (factories, cli_trace, ...)."""

import sys
from pathlib import Path

TESTS = str(Path(__file__).resolve().parents[1])
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)
