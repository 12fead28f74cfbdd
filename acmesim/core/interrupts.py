"""Ctrl-C (SIGINT) and SIGTERM as one exception a run can record before the process exits.

``signals_as_interrupts()`` makes both signals raise ``Interrupted`` (a ``KeyboardInterrupt``),
so a replay notes the interruption in its summary and never marks itself complete; the command
line then exits with the conventional ``128 + signal number`` (130 for SIGINT, 143 for SIGTERM).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

HANDLED = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """The process received ``signum`` (SIGINT or SIGTERM) and is stopping."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def signal_number(exc: KeyboardInterrupt) -> int:
    """The signal behind ``exc`` (a plain ``KeyboardInterrupt`` is Ctrl-C, SIGINT)."""
    return getattr(exc, "signum", signal.SIGINT)


def describe(exc: KeyboardInterrupt) -> str:
    """``interrupted by SIGINT`` / ``interrupted by SIGTERM``: what a summary records."""
    return f"interrupted by {signal.Signals(signal_number(exc)).name}"


def exit_code(exc: KeyboardInterrupt) -> int:
    """The shell's convention for a process stopped by a signal: 128 + its number."""
    return 128 + int(signal_number(exc))


@contextlib.contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise ``Interrupted`` once; a repeat is ignored.

    Ignoring the repeat lets the run finish recording the interruption (a fraction of a
    second); the previous handlers are restored on exit. Outside the main thread (where Python
    allows no handlers) the block runs unchanged.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised = False

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal raised
        if not raised:
            raised = True
            raise Interrupted(signum)

    previous = {signum: signal.signal(signum, handler) for signum in HANDLED}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
