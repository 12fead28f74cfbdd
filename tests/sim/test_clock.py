"""The clock's direct calls and deferred call keep SimPy's (time, priority, insertion) order."""

import math

import pytest

from acmesim.sim.clock import PASS_PRIORITY, Clock


def _log_direct(log):
    return lambda a, b: log.append((a, b))


def test_direct_calls_interleave_with_events_in_insertion_order():
    clock, log = Clock(), []
    clock.call_at(5.0, lambda event: log.append(("event", 1)))
    clock.call_direct(5.0, _log_direct(log), "direct", 2)
    clock.call_at(5.0, lambda event: log.append(("event", 3)))
    clock.call_direct(1.0, _log_direct(log), "direct", 0)
    clock.call_direct(7.0, _log_direct(log), "direct", 4)
    clock.run()
    assert log == [("direct", 0), ("event", 1), ("direct", 2), ("event", 3), ("direct", 4)]
    assert clock.now == 7.0


def test_a_deferred_call_runs_after_every_normal_entry_at_its_time():
    clock, log = Clock(), []

    def at_five(a, b):
        clock.call_last(lambda: log.append("pass"), PASS_PRIORITY)
        clock.call_direct(5.0, _log_direct(log), "direct", "later")  # drawn after the pass

    clock.call_direct(5.0, at_five, None, None)
    clock.call_at(5.0, lambda event: log.append("event"))
    clock.run()
    assert log == ["event", ("direct", "later"), "pass"]


def test_step_and_run_until_process_direct_calls():
    clock, log = Clock(), []
    clock.call_direct(2.0, _log_direct(log), "a", 1)
    clock.call_direct(4.0, _log_direct(log), "b", 2)
    clock.step()
    assert log == [("a", 1)] and clock.now == 2.0
    clock.run(until=3.0)
    assert log == [("a", 1)] and clock.now == 3.0
    clock.run(until=10.0)
    assert log == [("a", 1), ("b", 2)] and clock.now == 10.0


def test_a_direct_call_in_the_past_is_refused():
    clock = Clock(10.0)
    with pytest.raises(ValueError, match="before now"):
        clock.call_direct(9.0, _log_direct([]), None, None)
    assert clock.pending() == 0 and clock.peek() == math.inf


# --- the time heap keeps SimPy's order: the clock against plain SimPy events ---------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from simpy import Environment  # noqa: E402
from simpy.core import NORMAL, URGENT  # noqa: E402
from simpy.events import Event  # noqa: E402

_KINDS = ("event", "urgent", "direct", "last")
_PLANS = st.recursive(
    st.just(()),
    lambda children: st.lists(
        st.tuples(st.sampled_from(_KINDS), st.integers(0, 3), children), max_size=4
    ).map(tuple),
    max_leaves=30,
)
"""A plan: entries ``(kind, delay, plan of the entries it schedules when it runs)``."""


class _Driver:
    """Runs a plan on a clock (``ours``) or on plain SimPy events, logging what runs."""

    def __init__(self, env, ours: bool) -> None:
        self.env, self.ours, self.log, self.pending_last = env, ours, [], False
        self.labels = iter(range(10**6))

    def schedule(self, plan) -> None:
        for kind, delay, children in plan:
            label = next(self.labels)
            if kind == "last":
                if self.pending_last:
                    continue
                self.pending_last = True
            self._one(kind, delay if kind != "last" else 0, label, children)

    def _run(self, label, kind, children) -> None:
        if kind == "last":
            self.pending_last = False
        self.log.append((self.env.now, label))
        self.schedule(children)

    def _one(self, kind, delay, label, children) -> None:
        env, at = self.env, self.env.now + delay
        run = lambda *_: self._run(label, kind, children)  # noqa: E731
        if not self.ours:
            event = Event(env)
            event._ok, event._value = True, None
            event.callbacks.append(run)
            priority = {"urgent": URGENT, "last": PASS_PRIORITY}.get(kind, NORMAL)
            env.schedule(event, priority, delay)
        elif kind == "direct":
            env.call_direct(at, run, None, None)
        elif kind == "last":
            env.call_last(run)
        else:
            env.call_at(at, run, priority=URGENT if kind == "urgent" else NORMAL)


@settings(max_examples=200, deadline=None)
@given(_PLANS)
def test_direct_calls_events_and_the_deferred_call_run_in_simpys_order(plan):
    runs = []
    for env, ours in ((Clock(), True), (Environment(), False)):
        driver = _Driver(env, ours)
        driver.schedule(plan)
        env.run()
        runs.append(driver.log)
    assert runs[0] == runs[1]


@settings(max_examples=80, deadline=None)
@given(_PLANS)
def test_step_by_step_the_clock_keeps_the_same_order_and_counts(plan):
    env, reference = Clock(), Environment()
    ours, theirs = _Driver(env, True), _Driver(reference, False)
    ours.schedule(plan)
    theirs.schedule(plan)
    while env.pending():
        assert env.pending() == len(reference._queue)
        assert env.peek() == reference.peek()
        env.step()
        reference.step()
        assert ours.log == theirs.log
    assert not reference._queue and not env.pending() and env.peek() == math.inf




def test_direct_calls_filed_out_of_time_order_run_in_time_order():
    clock, log = Clock(), []

    def at_half(a, b):
        log.append(a)
        clock.call_direct(1.9, _log_direct(log), 1.9, None)  # after 1.2, filed before it

    clock.call_direct(0.5, at_half, 0.5, None)
    clock.call_direct(1.2, _log_direct(log), 1.2, None)
    clock.run()
    assert log == [0.5, (1.2, None), (1.9, None)]
