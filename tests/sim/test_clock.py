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
