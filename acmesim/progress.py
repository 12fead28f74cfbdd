"""A progress bar for long replays: simulated time against the trace span, and jobs done.

The engine calls the bar as ``progress(fraction, jobs_done)`` (fraction of the trace span
simulated so far, jobs finished). The bar is drawn with tqdm on a terminal only: it stays
silent when the stream is not a terminal (a pipe, a file, a batch job, a test) or when
``progress=false`` is set, so it never ends up in a result file or a log.
"""

from __future__ import annotations

import sys
from typing import IO, Any

from tqdm import tqdm


def is_terminal(stream: IO[str] | None) -> bool:
    """True when ``stream`` is an interactive terminal."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


class ReplayProgress:
    """A tqdm bar of the simulated share of the trace span, with the count of jobs done."""

    def __init__(self, enabled: bool = True, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.enabled = enabled and is_terminal(self.stream)
        self._bar: Any = None

    def __call__(self, fraction: float, jobs_done: int) -> None:
        """Show ``fraction`` (0..1) of the trace span simulated and ``jobs_done`` jobs ended."""
        if not self.enabled:
            return
        if self._bar is None:
            self._bar = tqdm(total=100, desc="replay", unit="%", file=self.stream,
                             leave=False, dynamic_ncols=True,
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
