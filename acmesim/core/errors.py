"""The exceptions acmesim raises on bad input; each message says what was expected."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class AcmesimError(Exception):
    """Base class for every error acmesim reports to a user."""


class ConfigError(AcmesimError):
    """A configuration value or key that acmesim cannot accept."""


class UnknownNameError(ConfigError):
    """A plug-in name that no registry of that kind knows."""

    def __init__(self, kind: str, name: str, valid: Iterable[str]) -> None:
        self.kind, self.name, self.valid = kind, name, sorted(valid)
        super().__init__(
            f"unknown {kind} {name!r}; valid {kind} names: {', '.join(self.valid)}"
        )


class UnknownOptionError(ConfigError):
    """An option key that a plug-in's typed configuration does not declare."""

    def __init__(self, kind: str, name: str, key: str, valid: Iterable[str]) -> None:
        self.kind, self.name, self.key, self.valid = kind, name, key, sorted(valid)
        listed = ", ".join(self.valid) or "(none)"
        super().__init__(f"{kind} {name!r} has no option {key!r}; valid options: {listed}")


class TraceError(AcmesimError):
    """A trace file that cannot be read as the format it claims; names file, line and column.

    ``line`` is the 1-based line number in the file (the header is line 1), so a user can open
    the file in an editor and go straight to the bad row.
    """

    def __init__(
        self,
        path: str,
        message: str,
        *,
        line: int | None = None,
        column: str | None = None,
        value: Any = None,
        expected: str | None = None,
    ) -> None:
        self.path, self.line, self.column = str(path), line, column
        self.value, self.expected, self.reason = value, expected, message
        where = self.path
        if line is not None:
            where += f", line {line}"
        if column is not None:
            where += f", column {column!r}"
        text = f"{where}: {message}"
        if value is not None:
            text += f" (got {value!r}"
            text += f", expected {expected})" if expected else ")"
        elif expected:
            text += f" (expected {expected})"
        super().__init__(text)
