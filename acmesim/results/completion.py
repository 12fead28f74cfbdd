"""A run directory's completion record: the proof that a run finished, written after everything.

A replay writes ``complete.json`` last, atomically, once every table and ``summary.csv`` is on
disk. It holds the digest of the run's configuration and the size and SHA-256 of every file the
run wrote. A run directory is complete only while that record exists, matches the configuration
asked for, and every file it lists still has its recorded size and hash. Before a new run
writes anything, ``begin_run`` removes the record first, then the previous run's files and any
temporary file an interrupted atomic write left behind: whatever point a run is stopped at
(Ctrl-C, SIGTERM, SIGKILL, power loss), what remains is never taken as a finished result.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from acmesim.core.atomic import atomic_write_text

COMPLETION_FILE = "complete.json"
RECORD_FORMAT = 1
"""Version of the record's layout; a record of another version is not trusted."""

IGNORED_FOR_SKIP = ("progress", "run_id")
"""Configuration fields that do not change a run's results (left out of the digest)."""

CHUNK = 1 << 20


def comparable_config(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` (a recorded configuration) as plain dicts and lists, minus display-only fields."""
    plain = _plain(data)
    for key in IGNORED_FOR_SKIP:
        plain.pop(key, None)
    return plain


def _plain(value: Any) -> Any:
    """Mappings, tuples and lists as plain dicts and lists (JSON- and YAML-comparable)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def config_digest(data: Mapping[str, Any]) -> str:
    """SHA-256 of a recorded configuration (display-only fields left out), key order ignored."""
    text = json.dumps(comparable_config(data), sort_keys=True, separators=(",", ":"),
                      default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def temporary_files(run_dir: Path, names: Iterable[str]) -> list[Path]:
    """The leftovers ``acmesim.core.atomic`` writes of ``names`` may leave: ``.<name>.*.tmp``."""
    return [path for name in names for path in Path(run_dir).glob(f".{name}.*.tmp")]


def begin_run(run_dir: Path, result_files: Iterable[str]) -> None:
    """Invalidate ``run_dir`` before a run writes anything into it.

    The completion record goes first (made durable before anything else changes), then every
    file in ``result_files`` and the temporaries of interrupted writes of them or of the record.
    """
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / COMPLETION_FILE).unlink(missing_ok=True)
    _sync_directory(run_dir)
    names = [*result_files, COMPLETION_FILE]
    for path in [*(run_dir / name for name in names), *temporary_files(run_dir, names)]:
        path.unlink(missing_ok=True)


def _sync_directory(path: Path) -> None:
    """Flush a directory's entries to disk (where the platform allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def mark_complete(run_dir: Path, config: Mapping[str, Any], files: Iterable[Path]) -> Path:
    """Write the completion record of ``files`` (all inside ``run_dir``), atomically, last."""
    run_dir = Path(run_dir)
    listed = {Path(path).name: {"bytes": Path(path).stat().st_size,
                                "sha256": file_digest(Path(path))} for path in files}
    record = {"format": RECORD_FORMAT, "config_sha256": config_digest(config),
              "files": dict(sorted(listed.items()))}
    target = run_dir / COMPLETION_FILE
    atomic_write_text(target, json.dumps(record, indent=1) + "\n")
    _sync_directory(run_dir)
    return target


def incomplete_reason(run_dir: Path, config: Mapping[str, Any] | None = None) -> str | None:
    """Why ``run_dir`` does not hold a finished run (of ``config``, when given); None if it does."""
    path = Path(run_dir) / COMPLETION_FILE
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"no {COMPLETION_FILE}: the run was interrupted before it finished"
    except (OSError, ValueError) as exc:
        return f"{COMPLETION_FILE} is unreadable ({exc})"
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        return f"{COMPLETION_FILE} has an unknown format"
    if config is not None and record.get("config_sha256") != config_digest(config):
        return f"{COMPLETION_FILE} records another configuration"
    files = record.get("files")
    if not isinstance(files, dict) or not files:
        return f"{COMPLETION_FILE} lists no files"
    for name, expected in files.items():
        problem = _file_problem(Path(run_dir) / name, expected)
        if problem:
            return f"{name} {problem} since the run finished"
    return None


def _file_problem(path: Path, expected: Any) -> str | None:
    """How ``path`` differs from its recorded size and hash (None when it does not)."""
    if not isinstance(expected, dict):
        return "has no valid entry"
    if not path.is_file():
        return "was removed"
    if path.stat().st_size != expected.get("bytes") or file_digest(path) != expected.get("sha256"):
        return "was changed"
    return None
