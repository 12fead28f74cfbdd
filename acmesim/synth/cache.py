"""A cache of generated synthetic traces, shared by every run of a sweep.

A sweep of a hundred replays over one synthetic trace would otherwise generate the same trace a
hundred times (minutes each at scale). ``cached_trace`` keys a generated table by a digest of
every generator option (profile, days, seed, scale, starts) and of the code that generates it
(the package version and the bytes of every module of ``acmesim``: any change of the code,
even one that would not change the trace, regenerates, so a cached trace is never stale), and
stores it as Parquet (``acmesim/trace/loaders/parquet.py``), which reads back the very
table that was generated.

Safe under parallel launchers (joblib, submitit, Ray on one file system): the file is written
atomically (``core/atomic.py``: a temporary sibling renamed over the name), so a reader sees a
complete file or none; and the generation of one key is serialised by an exclusive lock on a
sibling lock file (``fcntl.flock``), so two processes asking for the same trace at once
generate it once: the second waits and reads the first's file. Where ``flock`` is not
available both may generate; the atomic rename still leaves one complete file. A cache file
that cannot be read, or whose recorded key is not its name's, is regenerated and replaced.

Where (``trace.cache=``): ``auto`` (default) is ``$ACMESIM_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/acmesim/traces``, else ``~/.cache/acmesim/traces``; ``none`` turns the cache
off; anything else is the directory to use (e.g. ``trace.cache=multirun/traces``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

import acmesim
from acmesim.core.errors import ConfigError
from acmesim.trace.loaders.parquet import write_parquet

CACHE_ENV = "ACMESIM_CACHE_DIR"
"""Environment variable naming the cache directory of ``trace.cache=auto``."""
OFF = ("none", "off", "")
"""Settings of ``trace.cache`` that turn the cache off."""
KEY_FIELD = b"acmesim_trace_key"
"""Parquet file metadata field holding the key a cached trace was generated for."""


def cache_dir(setting: str | None) -> Path | None:
    """The cache directory ``setting`` names (see module); ``None`` when the cache is off."""
    if setting is None or str(setting).strip().lower() in OFF:
        return None
    if str(setting) != "auto":
        return Path(str(setting)).expanduser()
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "acmesim" / "traces"


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 of the package version and of every ``.py`` file of ``acmesim`` (path, bytes)."""
    root = Path(acmesim.__file__).parent
    digest = hashlib.sha256(acmesim.__version__.encode())
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def trace_key(options: Mapping[str, Any]) -> str:
    """The cache key of a trace generated with ``options`` by the current code."""
    text = json.dumps({"options": dict(options), "code": code_digest()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def cache_path(directory: Path, options: Mapping[str, Any]) -> Path:
    """The cache file of ``options``: readable option values, then the key."""
    readable = "_".join(f"{value:g}" if isinstance(value, float) else str(value)
                        for value in options.values())
    safe = "".join(c if c.isalnum() or c in "-." else "-" for c in readable)
    return directory / f"{safe}_{trace_key(options)}.parquet"


def cached_trace(options: Mapping[str, Any], generate: Callable[[], pd.DataFrame],
                 directory: Path | None) -> pd.DataFrame:
    """The trace of ``options``: read from ``directory`` if cached, else generated and stored.

    ``generate`` must depend on ``options`` only (and the code). ``directory`` ``None``: no
    cache, ``generate()`` is returned.
    """
    if directory is None:
        return generate()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"trace.cache: cannot create the cache directory {directory}: "
                          f"{exc.strerror or exc}") from None
    path = cache_path(directory, options)
    key = trace_key(options)
    with _locked(path.with_name(f".{path.name}.lock")):
        cached = _read(path, key)
        if cached is not None:
            return cached
        jobs = generate()
        write_parquet(jobs, path, metadata={KEY_FIELD: key.encode()})
        return jobs


def _read(path: Path, key: str) -> pd.DataFrame | None:
    """The cached table at ``path`` if it is complete and was written for ``key``; else None."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not path.exists():
        return None
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError):
        return None  # unreadable: regenerated and replaced by the caller
    if (table.schema.metadata or {}).get(KEY_FIELD) != key.encode():
        return None
    return table.to_pandas()


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_path`` (no lock where ``fcntl`` does not exist)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: the atomic rename alone protects
        yield
        return
    with open(lock_path, "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
