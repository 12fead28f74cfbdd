"""Per-job-type rows of a cluster option (``startup.by_type``, ``eligibility.by_type``), and
per-job values given instead of drawn (``GivenStartup``, ``GivenHolds``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from acmesim.core.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np


def type_rows(value: Any, fields: tuple[str, ...], defaults: Mapping[str, float],
              option: str) -> list[tuple[str, Mapping[str, Any], dict[str, Any]]]:
    """``(type, given, row)`` of each job type of ``value``, sorted by type: ``value`` maps a
    type to a dict of some of ``fields`` (or is the tuple form ``(type, *fields)`` the option
    keeps); ``given`` is that dict, ``row`` is ``defaults`` updated with it. A value of
    another form, a row that is not a dict or a field not in ``fields`` is a ``ConfigError``
    naming ``option``."""
    if isinstance(value, tuple):
        items = [(row[0], dict(zip(fields, row[1:], strict=True))) for row in value]
    elif isinstance(value, Mapping):
        items = list(value.items())
    else:
        raise ConfigError(f"{option} by_type must map a job type to {list(fields)}, "
                          f"got {value!r}")
    rows: list[tuple[str, Mapping[str, Any], dict[str, Any]]] = []
    for name, given in sorted(items, key=lambda item: str(item[0])):
        if not isinstance(given, Mapping) or set(given) - set(fields):
            raise ConfigError(f"{option} by_type[{name!r}] must be a dict of "
                              f"{list(fields)}, got {given!r}")
        rows.append((str(name), given, {**defaults, **given}))
    return rows


def given_values(values: Any, n: int, what: str) -> np.ndarray:
    """A copy of ``values`` as ``n`` floats, one per job of the replayed table in the engine's
    order; a ``ConfigError`` naming ``what`` when they are not ``n``."""
    import numpy as np
    given = np.asarray(values, dtype=np.float64)
    if given.shape != (n,):
        raise ConfigError(f"given {what} hold {given.size} values for {n} jobs")
    return given.copy()
