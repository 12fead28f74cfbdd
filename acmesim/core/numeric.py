"""Sums whose result does not depend on the machine: exactly rounded dot products."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def exact_dot(a: np.ndarray | Sequence[float], b: np.ndarray | Sequence[float]) -> float:
    """``a . b``, the products summed exactly rounded (``math.fsum``) over the nonzero ``a``.

    Not ``np.dot``: its BLAS sum depends on the build and on the number of threads (OpenBLAS
    splits a product of more than about ten thousand terms across its threads), so the same
    run would write different last digits on machines with different core counts; its threads
    also spin on after the call. Each product is rounded once, then the sum is exact-rounded,
    so the result is independent of the terms' order.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"exact_dot needs equal shapes, got {a.shape} and {b.shape}")
    nonzero = np.flatnonzero(a)
    return math.fsum((a[nonzero] * b[nonzero]).tolist()) if nonzero.size else 0.0
