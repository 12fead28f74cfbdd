"""A progress bar for long replays: simulated time against the trace span, and jobs done.

The engine calls the bar as ``progress(fraction, jobs_done)`` (fraction of the trace span
simulated so far, jobs finished). The command line draws it on a terminal only: it stays
silent when the stream is not a terminal (a pipe, a file, a batch job, a test) or when
``progress=false`` is set, so it never ends up in a result file or a log. From Python,
``simulate(..., progress=True)`` asks for the bar explicitly, so it is drawn wherever the call
runs; tqdm's ``auto`` bar makes it a widget in Jupyter (a text bar without ipywidgets).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

ProgressArgument = Callable[[float, int], None] | bool | None
"""What the Python API accepts as ``progress``: a callback, True (draw a bar), False/None."""


def is_terminal(stream: IO[str] | None) -> bool:
    """True when ``stream`` is an interactive terminal."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


class ReplayProgress:
    """A tqdm bar of the simulated share of the trace span, with the count of jobs done."""

    def __init__(self, enabled: bool = True, stream: IO[str] | None = None,
                 terminal_only: bool = True) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.enabled = enabled and (is_terminal(self.stream) or not terminal_only)
        self.leave = not terminal_only  # asked for explicitly: keep the finished bar in view
        self._bar: Any = None

    def __call__(self, fraction: float, jobs_done: int) -> None:
        """Show ``fraction`` (0..1) of the trace span simulated and ``jobs_done`` jobs ended."""
        if not self.enabled:
            return
        if self._bar is None:
            from tqdm.auto import tqdm  # only a drawn bar pays for tqdm (and its asyncio)

            self._bar = tqdm(total=100, desc="replay", unit="%", file=self.stream,
                             leave=self.leave, dynamic_ncols=True,
                             bar_format="{desc}: {percentage:3.0f}% of the trace span|{bar}| "
                             "[{elapsed}<{remaining}{postfix}]")
        percent = min(max(float(fraction), 0.0), 1.0) * 100.0
        self._bar.set_postfix_str(f"{jobs_done:,} jobs done", refresh=False)
        if percent > self._bar.n:
            self._bar.update(percent - self._bar.n)  # tqdm throttles the redraws itself

    def close(self) -> None:
        """Remove the bar from the terminal."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> ReplayProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def progress_callback(progress: ProgressArgument) -> Iterator[Callable[[float, int], None] | None]:
    """The engine's callback for a ``progress`` argument; a bar made here is closed after."""
    if progress is True:
        with ReplayProgress(terminal_only=False) as bar:
            yield bar
    else:
        yield progress or None
