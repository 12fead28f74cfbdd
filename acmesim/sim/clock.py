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
(``Clock.call_direct``): ``callback(a, b)`` at a time, at SimPy's ``NORMAL`` priority, with an
insertion number drawn from SimPy's counter. They take their place in SimPy's order exactly as
an event scheduled at the same moment would, but cost no event object, callback list or value
tuple (two per GPU job), and nothing can wait on them.

Direct calls are kept apart from SimPy's heap, in a *calendar*: time is cut into buckets of
``bucket_width`` seconds; the direct calls of the current bucket (and of any earlier one) are in
a small heap of ``(time, insertion number, callback, a, b)`` entries, each later bucket's in an
unsorted list, heapified when the clock reaches it. A replay has one pending completion per
running job (tens of thousands at 100k GPUs), most of them hours or days ahead; in one heap of
them each push and pop sifts through ~15 levels of entries that are mostly out of the CPU's
caches. In the calendar a push appends to its bucket's list, and the heap the loop works on
holds only the next minutes' calls. SimPy's own heap keeps the other events (failures,
callbacks, recorded-start wake-ups) and is merged with the calendar by the full order key.
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heapify, heappop, heappush
from typing import Any

import simpy
from simpy.core import NORMAL, EmptySchedule, Infinity, StopSimulation
from simpy.events import Event, EventPriority

PASS_PRIORITY = EventPriority(NORMAL + 1)
"""Priority of the scheduling-pass event: after SimPy's URGENT (0) and NORMAL (1) events."""


DirectEntry = tuple[float, int, Callable[[Any, Any], Any], Any, Any]
"""A direct call in the calendar: ``(time, insertion number, callback, a, b)``."""

BUCKET_WIDTH = 600.0
"""Seconds of a calendar bucket (chosen: at 100k GPUs a 183-day Seren replay has about one
completion a second, so the current bucket's heap holds a few hundred entries; any width gives
the same order)."""


class Clock(simpy.Environment):
    """A SimPy environment that can also schedule an event at an absolute time.

    Scheduling at ``time`` directly (instead of ``now + (time - now)``) keeps recorded
    timestamps bit-exact even when they are not whole seconds.
    """

    def __init__(self, initial_time: float = 0, bucket_width: float = BUCKET_WIDTH) -> None:
        super().__init__(initial_time)
        if not bucket_width > 0:
            raise ValueError(f"bucket_width must be > 0 seconds, got {bucket_width!r}")
        self._last_key: tuple[float, int, int] | None = None
        self._last_call: Callable[[], Any] | None = None
        self.bucket_width = float(bucket_width)
        self._current = -Infinity
        """The calendar's current bucket (``time // bucket_width``): direct calls of it and of
        earlier buckets are in ``_near``."""
        self._near: list[DirectEntry] = []
        """Heap of the direct calls of the current bucket and earlier."""
        self._later: dict[float, list[DirectEntry]] = {}
        """The direct calls of each later bucket, unsorted."""
        self._later_keys: list[float] = []
        """Heap of the buckets of ``_later``."""

    def schedule_at(self, event: Event, time: float, priority: EventPriority = NORMAL) -> None:
        """Put ``event`` on the queue at absolute ``time`` (not before now)."""
        if time < self._now:
            raise ValueError(f"cannot schedule at {time} before now ({self._now})")
        heappush(self._queue, (time, priority, next(self._eid), event))

    def pending(self) -> int:
        """How many events are scheduled and not yet processed (a deferred call counts)."""
        later = sum(len(entries) for entries in self._later.values())
        return len(self._queue) + len(self._near) + later + (self._last_key is not None)

    def any_pending(self) -> bool:
        """Whether anything is scheduled (an event, a direct call or the deferred call)."""
        return bool(self._queue or self._near or self._later_keys
                    or self._last_key is not None)

    def peek(self) -> float:
        """The time of the next event or deferred call (``Infinity`` if none)."""
        if self._last_key is not None:
            return self._now
        first = self._queue[0][0] if self._queue else Infinity
        if self._near:
            return min(first, self._near[0][0])
        if self._later_keys:
            return min(first, min(self._later[self._later_keys[0]])[0])
        return first

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
        if not time >= self._now:
            raise ValueError(f"cannot schedule at {time} before now ({self._now})")
        entry = (time, next(self._eid), callback, a, b)
        bucket = time // self.bucket_width
        if bucket <= self._current:
            heappush(self._near, entry)
        else:
            self.add_later(bucket, entry)

    def add_later(self, bucket: float, entry: DirectEntry) -> None:
        """File ``entry`` under ``bucket``, a later bucket than the current one (what
        ``call_direct`` does then; the engine's written-out copies call it)."""
        entries = self._later.get(bucket)
        if entries is None:
            self._later[bucket] = [entry]
            heappush(self._later_keys, bucket)
        else:
            entries.append(entry)

    def _advance(self) -> None:
        """The near heap is empty: make the next bucket with direct calls the current one."""
        bucket = heappop(self._later_keys)
        near = self._near
        near.extend(self._later.pop(bucket))
        heapify(near)
        self._current = bucket

    def call_last(self, callback: Callable[[], Any], priority: int = PASS_PRIORITY) -> None:
        """Run ``callback()`` now, after the events ordered before ``(now, priority)``.

        Same place in the order as ``call_at(now, ..., priority)`` (which it replaces for the
        scheduling pass), without an event object. One deferred call may be pending at a time.
        """
        if self._last_key is not None:
            raise RuntimeError("a deferred call is already pending")
        self._last_key = (self._now, priority, next(self._eid))
        self._last_call = callback

    def step(self) -> None:
        """Process the next event, direct call or deferred call (``EmptySchedule`` when none is
        left)."""
        if not self._near and self._later_keys:
            self._advance()
        key, queue, near = self._last_key, self._queue, self._near
        direct = bool(near) and (not queue or _direct_first(near[0], queue[0]))
        if key is not None and (_last_first(key, near[0]) if direct
                                else (not queue or queue[0] > key)):
            callback = self._last_call
            self._last_key = self._last_call = None
            if callback is not None:
                callback()
            return
        if direct:
            self._now, _, callback, a, b = heappop(near)
            callback(a, b)
            return
        super().step()

    def run(self, until: Any = None) -> Any:
        """Process events until none is left (``until`` as in SimPy, which it then runs)."""
        if until is not None:
            return super().run(until)
        queue, near, later_keys = self._queue, self._near, self._later_keys
        try:
            while True:
                if not near and later_keys:
                    self._advance()
                if near:
                    first = near[0]
                    time = first[0]
                    # the direct call is next unless SimPy's first event is before it
                    if not queue or queue[0][0] > time or (
                            queue[0][0] == time and _direct_first(first, queue[0])):
                        key = self._last_key
                        if key is not None and (key[0] < time or key[0] == time
                                                and _last_first(key, first)):
                            call = self._last_call  # the pass first: it is due before
                            self._last_key = self._last_call = None
                            call()  # type: ignore[misc]
                            continue
                        self._now, _, callback, a, b = heappop(near)
                        callback(a, b)
                        continue
                elif not queue:
                    if self._last_key is None:
                        return None
                    call = self._last_call
                    self._last_key = self._last_call = None
                    call()  # type: ignore[misc]
                    continue
                key = self._last_key
                if key is not None and queue[0] > key:
                    call = self._last_call  # _run_last, written out: one call a pass less
                    self._last_key = self._last_call = None
                    call()  # type: ignore[misc]
                    continue
                self._now, _, _, event = heappop(queue)
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


def _direct_first(entry: DirectEntry, event: tuple) -> bool:
    """Whether the direct call ``entry`` comes before SimPy's heap entry ``event``."""
    return (entry[0], NORMAL, entry[1]) < event[:3]


def _last_first(key: tuple[float, int, int], entry: DirectEntry) -> bool:
    """Whether the deferred call of order key ``key`` comes before the direct call ``entry``."""
    return key < (entry[0], NORMAL, entry[1])


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
