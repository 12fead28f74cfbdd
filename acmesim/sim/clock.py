"""The SimPy environment acmesim runs on, plus the event kinds and priorities it uses.

Event order at one timestamp: SimPy processes events by ``(time, priority, insertion order)``.
Arrivals, completions, recorded-start wake-ups and external callbacks (failures, ...) use
SimPy's ``NORMAL`` priority; the scheduling pass uses ``PASS_PRIORITY`` (larger = later), so it
runs after every other event at its time has been applied.

The scheduling pass is a *deferred call* (``Clock.call_last``): it takes its place in that order
(it draws its insertion number from SimPy's own counter, so every other event keeps the number
it had) but is held beside the heap instead of in it, so the one pass per timestamp costs no
event object, heap push or pop. ``step`` and ``run`` process it exactly where the heap would.

The engine's own per-job events (a job's completion, each batch of arrivals) are *direct calls*
(``Clock.call_direct``): heap entries like any SimPy event's, ``(time, priority, insertion
number)`` first, whose last item is ``(callback, a, b)`` instead of an ``Event``; processing one
calls ``callback(a, b)``. They take their place in SimPy's order exactly as an event scheduled
at the same moment would, but cost no event object, callback list or value tuple (two per GPU
job), and nothing can wait on them.
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush
from typing import Any

import simpy
from simpy.core import NORMAL, EmptySchedule, Infinity, StopSimulation
from simpy.events import Event, EventPriority

PASS_PRIORITY = EventPriority(NORMAL + 1)
"""Priority of the scheduling-pass event: after SimPy's URGENT (0) and NORMAL (1) events."""


class Clock(simpy.Environment):
    """A SimPy environment that can also schedule an event at an absolute time.

    Scheduling at ``time`` directly (instead of ``now + (time - now)``) keeps recorded
    timestamps bit-exact even when they are not whole seconds.
    """

    def __init__(self, initial_time: float = 0) -> None:
        super().__init__(initial_time)
        self._last_key: tuple[float, int, int] | None = None
        self._last_call: Callable[[], Any] | None = None

    def schedule_at(self, event: Event, time: float, priority: EventPriority = NORMAL) -> None:
        """Put ``event`` on the queue at absolute ``time`` (not before now)."""
        if time < self._now:
            raise ValueError(f"cannot schedule at {time} before now ({self._now})")
        heappush(self._queue, (time, priority, next(self._eid), event))

    def pending(self) -> int:
        """How many events are scheduled and not yet processed (a deferred call counts)."""
        return len(self._queue) + (self._last_key is not None)

    def peek(self) -> float:
        """The time of the next event or deferred call (``Infinity`` if none)."""
        if self._last_key is not None:
            return self._now
        return self._queue[0][0] if self._queue else Infinity

    def call_at(self, time: float, callback: Callable[[Event], Any], value: Any = None,
                priority: EventPriority = NORMAL) -> Event:
        """Run ``callback(event)`` at absolute ``time``; ``event.value`` is ``value``."""
        if time < self._now:
            raise ValueError(f"cannot schedule at {time} before now ({self._now})")
        event = _new_callback(Callback)  # Callback.__init__ written out (one per job start)
        event.env = self
        event.callbacks = [callback]
        event._value = value
        event._ok = True
        heappush(self._queue, (time, priority, next(self._eid), event))
        return event

    def call_direct(self, time: float, callback: Callable[[Any, Any], Any], a: Any, b: Any
                    ) -> None:
        """Call ``callback(a, b)`` at absolute ``time`` (NORMAL priority), as a direct call
        (module docstring): ordered as ``call_at`` would order it, with no event to return."""
        if time < self._now:
            raise ValueError(f"cannot schedule at {time} before now ({self._now})")
        # a direct call's entry holds (callback, a, b) where SimPy's stubs expect an Event
        heappush(self._queue, (time, NORMAL, next(self._eid), (callback, a, b)))  # type: ignore[misc]

    def call_last(self, callback: Callable[[], Any], priority: int = PASS_PRIORITY) -> None:
        """Run ``callback()`` now, after the events ordered before ``(now, priority)``.

        Same place in the order as ``call_at(now, ..., priority)`` (which it replaces for the
        scheduling pass), without an event object. One deferred call may be pending at a time.
        """
        if self._last_key is not None:
            raise RuntimeError("a deferred call is already pending")
        self._last_key = (self._now, priority, next(self._eid))
        self._last_call = callback

    def _run_last(self) -> None:
        """Run the pending deferred call (its time is now)."""
        callback = self._last_call
        self._last_key = self._last_call = None
        if callback is not None:
            callback()

    def step(self) -> None:
        """Process the next event, direct call or deferred call (``EmptySchedule`` when none is
        left)."""
        key, queue = self._last_key, self._queue
        if key is not None and (not queue or queue[0] > key):
            self._run_last()
            return
        if queue and queue[0][3].__class__ is tuple:
            self._now, _, _, (callback, a, b) = heappop(queue)
            callback(a, b)
            return
        super().step()

    def run(self, until: Any = None) -> Any:
        """Process events until none is left (``until`` as in SimPy, which it then runs)."""
        if until is not None:
            return super().run(until)
        queue = self._queue
        try:
            while True:
                key = self._last_key
                if key is not None and (not queue or queue[0] > key):
                    call = self._last_call  # _run_last, written out: one call a pass less
                    self._last_key = self._last_call = None
                    call()  # type: ignore[misc]
                    continue
                if not queue:
                    return None
                self._now, _, _, event = heappop(queue)
                if event.__class__ is tuple:  # a direct call
                    callback, a, b = event
                    callback(a, b)
                    continue
                # None marks a processed event, as in simpy's own step (its stubs say list only)
                callbacks, event.callbacks = event.callbacks, None  # type: ignore[assignment]
                try:
                    for callback in callbacks:
                        callback(event)
                except StopSimulation:
                    event.callbacks = callbacks[callbacks.index(callback) + 1:]
                    self.schedule(event, EventPriority(-1))
                    raise
                if not event._ok and not hasattr(event, "_defused"):
                    exc = type(event._value)(*event._value.args)
                    exc.__cause__ = event._value
                    raise exc
        except StopSimulation as stop:
            return stop.args[0]
        except EmptySchedule:  # pragma: no cover - raised only by super().step()
            return None


class Callback(Event):
    """An already-triggered event whose only callback is ``callback`` (cheaper than a process;
    ``Clock.call_at`` sets the same fields without the call)."""

    __slots__ = ()

    def __init__(self, env: Clock, callback: Callable[[Event], Any], value: Any = None) -> None:
        self.env = env
        self.callbacks = [callback]
        self._value = value
        self._ok = True


_new_callback = object.__new__
