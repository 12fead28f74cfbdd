"""Node health states: the first-class condition of every node, ready for failure injection."""

from __future__ import annotations

import enum


class NodeHealth(enum.StrEnum):
    """The condition of one node; only ``UP`` nodes accept new jobs."""

    UP = "up"
    """Healthy and schedulable."""
    DRAINING = "draining"
    """Keeps its running jobs but accepts no new ones (e.g. before maintenance)."""
    FAILED = "failed"
    """Down: its jobs were interrupted and it accepts nothing until repaired."""
    REPAIRING = "repairing"
    """Being repaired: holds no jobs and accepts none until it is set ``UP`` again."""

    @property
    def accepts_jobs(self) -> bool:
        """Whether placement may put new jobs on a node in this state."""
        return self is NodeHealth.UP

    @property
    def keeps_jobs(self) -> bool:
        """Whether jobs already running on a node in this state keep running."""
        return self is NodeHealth.UP or self is NodeHealth.DRAINING
