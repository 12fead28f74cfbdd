"""Named random-number streams derived from one seed, so each concern draws independently.

Changing how many numbers the failure model draws never reshuffles arrivals: every stream is
seeded from ``(seed, sha256(name))`` and nothing in acmesim touches global random state.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def _name_key(name: str) -> int:
    """A stable 64-bit integer for a stream name (independent of Python's hash seed)."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "little")


class RngStreams:
    """A family of independent ``numpy.random.Generator`` streams keyed by name."""

    def __init__(self, seed: int) -> None:
        if int(seed) < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.seed = int(seed)
        self._streams: dict[str, np.random.Generator] = {}

    def stream(self, name: str) -> np.random.Generator:
        """The generator for ``name``; the same object on every call within one family."""
        if name not in self._streams:
            import numpy as np

            seq = np.random.SeedSequence(entropy=self.seed, spawn_key=(_name_key(name),))
            self._streams[name] = np.random.Generator(np.random.PCG64(seq))
        return self._streams[name]

    def fresh(self, name: str) -> np.random.Generator:
        """A new generator for ``name`` at its initial state (not cached)."""
        import numpy as np
        seq = np.random.SeedSequence(entropy=self.seed, spawn_key=(_name_key(name),))
        return np.random.Generator(np.random.PCG64(seq))
