"""Range checks of numeric options: one ``ValueError`` naming the option, its bound and value.

The options of the policies check their numbers in ``__post_init__`` with these, so every
option of every plug-in reports a bad value in the same words (``interval_min must be > 0, got
-1``), which the command line turns into its one-line error. ``None`` is an unset optional
option and passes; NaN fails every check.
"""

from __future__ import annotations

import math
from typing import Any


def option_values(options: object, *names: str) -> dict[str, Any]:
    """``{name: options.name}`` for ``names``: the keyword arguments of a check of several."""
    return {name: getattr(options, name) for name in names}


def require_positive(**values: float | None) -> None:
    """Raise ``ValueError`` unless every given value is > 0 (infinity allowed)."""
    for name, value in values.items():
        if value is not None and not value > 0:
            raise ValueError(f"{name} must be > 0, got {value!r}")


def require_non_negative(**values: float | None) -> None:
    """Raise ``ValueError`` unless every given value is >= 0 (infinity allowed)."""
    for name, value in values.items():
        if value is not None and not value >= 0:
            raise ValueError(f"{name} must be >= 0, got {value!r}")


def require_finite_non_negative(**values: float | None) -> None:
    """Raise ``ValueError`` unless every given value is a finite number >= 0."""
    for name, value in values.items():
        if value is not None and not (value >= 0 and math.isfinite(value)):
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")


def require_within(low: float, high: float, **values: float | None) -> None:
    """Raise ``ValueError`` unless every given value lies in the closed range [low, high]."""
    for name, value in values.items():
        if value is not None and not low <= value <= high:
            raise ValueError(f"{name} must be within [{low:g}, {high:g}], got {value!r}")
