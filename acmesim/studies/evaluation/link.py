"""An exact processor-sharing link: concurrent transfers split its bandwidth equally.

The share is recomputed at every start and finish. Rather than integrate per transfer, the link
tracks its *virtual time* ``V`` - the bytes each active transfer has received - which grows at
``bandwidth / n`` while ``n`` transfers are active. A transfer starting at ``V0`` with ``b``
bytes ends when ``V`` reaches ``V0 + b``; only the smallest such tag needs a timer, rescheduled at
every start or finish. Equal transfers started together carry identical tags and end together.
"""

from __future__ import annotations

import heapq
import itertools

import simpy

_TIE = 1e-12
"""Relative tolerance under which two finish tags count as the same instant."""


class SharedLink:
    """A link of ``bytes_per_s`` shared equally by its active transfers (SimPy, event-driven)."""

    def __init__(self, env: simpy.Environment, bytes_per_s: float) -> None:
        if not bytes_per_s > 0:
            raise ValueError(f"link bandwidth must be > 0 bytes/s, got {bytes_per_s!r}")
        self.env = env
        self.bytes_per_s = float(bytes_per_s)
        self._virtual = 0.0
        self._updated = env.now
        self._tags: list[tuple[float, int, simpy.Event]] = []
        self._seq = itertools.count()
        self._generation = 0

    @property
    def active(self) -> int:
        """Transfers in progress."""
        return len(self._tags)

    def transfer(self, nbytes: float) -> simpy.Event:
        """Start moving ``nbytes``; the returned event fires when the last byte has arrived."""
        if nbytes < 0:
            raise ValueError(f"transfer size must be >= 0 bytes, got {nbytes!r}")
        done = self.env.event()
        if nbytes == 0:
            return done.succeed()
        self._advance()
        heapq.heappush(self._tags, (self._virtual + nbytes, next(self._seq), done))
        self._reschedule()
        return done

    def _advance(self) -> None:
        """Bring the virtual time up to ``env.now`` at the current share."""
        if self._tags:
            share = self.bytes_per_s / len(self._tags)
            self._virtual += (self.env.now - self._updated) * share
        self._updated = self.env.now

    def _reschedule(self) -> None:
        """Arm one timer for the smallest finish tag; earlier timers become stale."""
        self._generation += 1
        if not self._tags:
            return
        generation = self._generation
        remaining = max(self._tags[0][0] - self._virtual, 0.0)
        delay = remaining * len(self._tags) / self.bytes_per_s
        timer = self.env.timeout(delay)
        timer.callbacks.append(lambda _event: self._finish(generation))

    def _finish(self, generation: int) -> None:
        """Complete every transfer whose tag is reached, then rearm the timer."""
        if generation != self._generation:
            return
        tag = self._tags[0][0]
        self._virtual = tag
        self._updated = self.env.now
        limit = tag + _TIE * max(abs(tag), 1.0)
        while self._tags and self._tags[0][0] <= limit:
            _, _, done = heapq.heappop(self._tags)
            done.succeed()
        self._reschedule()
