"""A disk that fills up half-way through a write: for testing that writers are atomic.

``disk_full(monkeypatch, names)`` wraps every file opened for writing whose name (or, for a
temporary sibling ``.<name>.XXXX.tmp``, whose target) is in ``names``: its first ``budget``
characters reach the file, then ``write`` raises ``OSError(ENOSPC)``. It patches ``open``,
``io.open`` and ``os.fdopen``, so it catches any writer, atomic or not: a non-atomic writer
leaves a truncated target, an atomic one leaves the previous file untouched.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
from pathlib import Path


class HalfWriter:
    """A writable file that accepts ``budget`` characters, then fails like a full disk."""

    def __init__(self, handle, budget: int) -> None:
        self._handle = handle
        self._budget = budget

    def write(self, data):
        if len(data) > self._budget:
            self._handle.write(data[: self._budget])
            self._handle.flush()
            self._budget = 0
            raise OSError(errno.ENOSPC, "No space left on device (test)")
        self._budget -= len(data)
        return self._handle.write(data)

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __iter__(self):
        return iter(self._handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._handle.close()
        return False


def _target_name(path: str) -> str:
    """``jobs.csv`` for ``.../jobs.csv`` and for its temporary sibling ``.jobs.csv.ab12.tmp``."""
    name = Path(path).name
    if name.startswith(".") and name.endswith(".tmp"):
        return name[1:].rsplit(".", 2)[0]
    return name


def _writing(mode: str) -> bool:
    return any(flag in mode for flag in "wax+")


def disk_full(monkeypatch, names: set[str], budget: int = 25) -> None:
    """Make writes of files named ``names`` fail after ``budget`` characters (see module)."""
    real_open, real_fdopen = builtins.open, os.fdopen

    def wrapped(handle, path, mode):
        if _writing(mode) and _target_name(str(path)) in names:
            return HalfWriter(handle, budget)
        return handle

    def fake_open(file, mode="r", *args, **kwargs):
        return wrapped(real_open(file, mode, *args, **kwargs), file, mode)

    def fake_fdopen(fd, mode="r", *args, **kwargs):
        path = os.readlink(f"/proc/self/fd/{fd}")
        return wrapped(real_fdopen(fd, mode, *args, **kwargs), path, mode)

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(io, "open", fake_open)
    monkeypatch.setattr(os, "fdopen", fake_fdopen)
