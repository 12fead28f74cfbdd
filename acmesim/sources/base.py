"""The trace-source contract: where a run's normalized job table comes from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import pandas as pd


@runtime_checkable
class TraceSourceProtocol(Protocol):
    """What a run calls on a trace source (``trace=NAME``, registry ``TRACES``).

    Built as ``cls(config)`` from its typed ``Config``; ``load`` once per run, before the
    replay. The table follows ``acmesim.trace.schema`` (one row per job)
    and is validated again by the run against the cluster.
    """

    def load(self) -> pd.DataFrame:
        """The normalized job table of this source."""
        ...
