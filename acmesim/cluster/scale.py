"""Scaling a cluster: ``K`` times its nodes, as a whole number of nodes (``cluster.scale``)."""

from __future__ import annotations

import math

from acmesim.core.errors import ConfigError

MAX_SCALE = 1000.0
"""Largest scale accepted (a guard against typos: 286,000 Seren nodes)."""
_WHOLE = 1e-6
"""How far ``K x nodes`` may be from a whole number (floating-point noise)."""


def scaled_nodes(nodes: int, scale: float, what: str) -> int:
    """``scale x nodes`` as a whole number; ``ConfigError`` naming ``what`` when it is not one."""
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not math.isfinite(scale):
        raise ConfigError(f"{what}: scale must be a number >= 1, got {scale!r}")
    if not 1.0 <= scale <= MAX_SCALE:
        raise ConfigError(f"{what}: scale must be in [1, {MAX_SCALE:g}], got {scale!r} "
                          f"(a smaller cluster may not hold the profile's largest jobs)")
    exact = scale * nodes
    whole = round(exact)
    if abs(exact - whole) > _WHOLE:
        low, high = math.floor(exact), math.ceil(exact)
        raise ConfigError(
            f"{what}: scale {scale:g} x {nodes} nodes = {exact:g} is not a whole number of "
            f"nodes; use scale {low / nodes:.6g} ({low} nodes) or {high / nodes:.6g} "
            f"({high} nodes)")
    return int(whole)
