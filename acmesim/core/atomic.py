"""Atomic file writes: a result file is either complete or absent, never half-written."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

from acmesim.core.errors import AcmesimError

if TYPE_CHECKING:  # pandas types the frame argument only: `acmesim synth --help` skips it
    import pandas as pd


class OutputPathError(AcmesimError):
    """A file cannot be written where it was asked for (a directory there, or a file above)."""


def check_output_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a ``Path`` if a file can be written there; else ``OutputPathError``.

    The path must not be an existing directory, and its nearest existing ancestor must be a
    directory (not a file).
    """
    target = Path(path)
    if target.is_dir():
        raise OutputPathError(f"cannot write {target}: it is a directory; give a file path")
    for parent in target.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OutputPathError(f"cannot write {target}: {parent} is a file, "
                                      f"not a directory")
            break
    return target


def _current_umask() -> int:
    """The process umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", **kwargs) -> Iterator[IO]:
    """Open a temporary sibling of ``path``; on success rename it over ``path``, else delete it."""
    target = check_output_path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, **kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_current_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8, ``\\n`` line endings)."""
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def atomic_write_csv(path: str | os.PathLike[str], frame: pd.DataFrame, **kwargs) -> None:
    """Write a DataFrame as CSV atomically; ``index=False`` and ``\\n`` endings by default."""
    kwargs.setdefault("index", False)
    kwargs.setdefault("lineterminator", "\n")
    with atomic_open(path, "w", encoding="utf-8", newline="") as handle:
        frame.to_csv(handle, **kwargs)
