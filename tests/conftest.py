"""Session-wide test settings: synthetic traces are cached in a directory of this session only.

Without it, replays of ``trace=synthetic`` would fill (and read) the user's own trace cache
(``acmesim/synth/cache.py``); subprocesses inherit the variable.
"""

from __future__ import annotations

import os

import pytest

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
