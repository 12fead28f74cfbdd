"""The windowing rule of the failure-model contract: how a run draws a model's faults.

A run does not draw all of a model's faults up front: it takes them window by window, each
``[start, end)`` from ``FailureModelProtocol.window_events`` with a random stream of its own
(``stream``), so the event queue holds one window's faults at a time. The rule, written only
here (``acmesim.faults.injector`` follows it):

1. The first window is ``[0, window)``; ``window`` defaults to the trace's span, at least a
   day, so it usually covers the whole run. Window ``k`` draws from the RNG stream
   ``failures.hardware`` (``k = 0``) or ``failures.hardware.k``.
2. Each later window starts where the previous one ended. A window that drew no fault is
   followed by one twice as long, so a long quiet spell (past a failure trace's last fault)
   takes few windows.
3. Windows keep coming while any job of the run has not ended, queued jobs included (nodes fail
   while every job waits); a later window opens only while something other than faults is
   still to happen, so a run whose jobs can never start still ends (with the engine's error).
4. A window that would start ``RUNAWAY_FACTOR`` times the trace's span (at least a day) after
   time 0 is refused with ``RunawayFaults``: the faults leave the unfinished jobs too little
   capacity to ever end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from acmesim.core.errors import AcmesimError
from acmesim.policies.failure.base import FailureModelProtocol
from acmesim.policies.failure.events import ClusterInfo, FailureEvent

if TYPE_CHECKING:
    import numpy as np

DAY = 86_400.0
RUNAWAY_FACTOR = 100.0
"""A run under faults that has lasted this many times the trace's span (at least a day) with
jobs still unfinished is stopped with an error: the faults leave its jobs too little capacity
to end (say, gangs of every node with node MTBFs of hours). **Chosen**: far beyond any sane
slowdown, small enough to stop in seconds instead of simulating centuries."""


class RunawayFaults(AcmesimError):
    """The next fault window would start past the runaway limit (rule 4)."""

    def __init__(self, start: float) -> None:
        super().__init__(f"no fault window starts at t={start:.6g} s, {RUNAWAY_FACTOR:g} x the "
                         f"trace's span or later")
        self.start = start


@dataclasses.dataclass
class FaultWindows:
    """The fault windows of one run (see the module docstring for the rule)."""

    model: FailureModelProtocol
    cluster: ClusterInfo
    length: float
    """Length of the next window (s)."""
    runaway_at: float
    """No window starts at or after this time (s)."""
    windows: list[tuple[float, float]] = dataclasses.field(default_factory=list)
    """``[start, end)`` of every window drawn so far, in order."""

    @classmethod
    def for_run(cls, model: FailureModelProtocol, cluster: ClusterInfo, span: float,
                window: float | None = None) -> FaultWindows:
        """The windows of a run over a trace of ``span`` seconds (``window``: first length)."""
        reach = max(span, DAY)
        return cls(model, cluster, window or reach, RUNAWAY_FACTOR * reach)

    @property
    def stream(self) -> str:
        """Name of the RNG stream the next window draws from."""
        k = len(self.windows)
        return "failures.hardware" if k == 0 else f"failures.hardware.{k}"

    @property
    def end(self) -> float:
        """End of the last window drawn (0 before the first)."""
        return self.windows[-1][1] if self.windows else 0.0

    def may_open(self, *, other_events_pending: bool) -> bool:
        """Whether the next window may be drawn now: the first always, a later one only while
        something other than faults is still to happen (rule 3)."""
        return not self.windows or other_events_pending

    def next_due(self, *, jobs_unfinished: bool) -> float | None:
        """When the next window opens once this one's faults are spent, or None: windows keep
        coming while any job has not ended (rule 3)."""
        return self.end if jobs_unfinished else None

    def open(self, rng_of: Callable[[str], np.random.Generator]) -> list[FailureEvent]:
        """Draw the next window's faults, sorted by time; ``rng_of(name)`` gives the stream.

        Raises ``RunawayFaults`` past the runaway limit (rule 4).
        """
        start = self.end
        if start >= self.runaway_at:
            raise RunawayFaults(start)
        end = start + self.length
        stream = self.stream
        self.windows.append((start, end))
        faults = list(self.model.window_events(self.cluster, start, end, rng_of(stream)))
        if not faults:
            self.length *= 2  # a long quiet spell (a trace's end) is crossed in few windows
        return faults


def faults_from(model: FailureModelProtocol, cluster: ClusterInfo, start: float, end: float,
                rng: np.random.Generator) -> Iterator[FailureEvent]:
    """``window_events`` for a model whose faults have fixed times (a failure trace): the faults
    at or after ``start`` of ``events(cluster, end, rng)``."""
    return (event for event in model.events(cluster, end, rng) if event.time >= start)
