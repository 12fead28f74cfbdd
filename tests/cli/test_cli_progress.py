"""The replay progress bar: drawn on a terminal, silent elsewhere or when switched off."""

from __future__ import annotations

import io

from acmesim.run.progress import ReplayProgress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def drive(bar: ReplayProgress) -> None:
    with bar:
        for step in range(1, 5):
            bar(step / 4, step * 10)


def test_bar_shows_span_share_and_jobs_on_a_terminal():
    stream = FakeTerminal()
    bar = ReplayProgress(enabled=True, stream=stream)
    for step in range(1, 5):
        bar(step / 4, step * 10)
    assert bar._bar.n == 100.0
    assert "40 jobs done" in bar._bar.postfix
    bar._bar.refresh()
    assert "100% of the trace span" in stream.getvalue()
    bar.close()
    assert bar._bar is None


def test_bar_is_silent_when_not_a_terminal():
    stream = io.StringIO()
    drive(ReplayProgress(enabled=True, stream=stream))
    assert stream.getvalue() == ""


def test_bar_is_silent_when_switched_off():
    stream = FakeTerminal()
    drive(ReplayProgress(enabled=False, stream=stream))
    assert stream.getvalue() == ""


def test_fraction_is_clamped_and_never_moves_back():
    stream = FakeTerminal()
    bar = ReplayProgress(stream=stream)
    bar(0.7, 1)
    bar(0.3, 2)
    bar(1.5, 3)
    assert bar._bar.n == 100.0
    bar.close()
