"""The SimPy environment acmesim runs on, plus the event kinds and priorities it uses.

Event order at one timestamp: SimPy processes events by ``(time, priority, insertion order)``.
Arrivals, completions, recorded-start wake-ups and external callbacks (failures, ...) use
SimPy's ``NORMAL`` priority; the scheduling pass uses ``PASS_PRIORITY`` (larger = later), so it
runs after every other event at its time has been applied.
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappush
from typing import Any

import simpy
from simpy.core import NORMAL
from simpy.events import Event, EventPriority

PASS_PRIORITY = EventPriority(NORMAL + 1)
"""Priority of the scheduling-pass event: after SimPy's URGENT (0) and NORMAL (1) events."""


class Clock(simpy.Environment):
    """A SimPy environment that can also schedule an event at an absolute time.

    Scheduling at ``time`` directly (instead of ``now + (time - now)``) keeps recorded
    timestamps bit-exact even when they are not whole seconds.
    """

    def schedule_at(self, event: Event, time: float, priority: EventPriority = NORMAL) -> None:
        """Put ``event`` on the queue at absolute ``time`` (not before now)."""
        if time < self._now:
            raise ValueError(f"cannot schedule at {time} before now ({self._now})")
        heappush(self._queue, (time, priority, next(self._eid), event))

    def pending(self) -> int:
        """How many events are scheduled and not yet processed."""
        return len(self._queue)

    def call_at(self, time: float, callback: Callable[[Event], Any], value: Any = None,
                priority: EventPriority = NORMAL) -> Event:
        """Run ``callback(event)`` at absolute ``time``; ``event.value`` is ``value``."""
        if time < self._now:
            raise ValueError(f"cannot schedule at {time} before now ({self._now})")
        event = Callback(self, callback, value)
        heappush(self._queue, (time, priority, next(self._eid), event))
        return event


class Callback(Event):
    """An already-triggered event whose only callback is ``callback`` (cheaper than a process)."""

    __slots__ = ()

    def __init__(self, env: Clock, callback: Callable[[Event], Any], value: Any = None) -> None:
        self.env = env
        self.callbacks = [callback]
        self._value = value
        self._ok = True
