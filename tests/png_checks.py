"""Shared check of the PNG figures the tests make: a real, non-empty, non-blank image."""

from __future__ import annotations

from pathlib import Path

import matplotlib.image
import numpy as np

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def assert_png(path: Path) -> None:
    """``path`` is a decodable PNG of more than 50 x 50 pixels that is not one flat color."""
    data = Path(path).read_bytes()
    assert data.startswith(PNG_SIGNATURE), path
    image = matplotlib.image.imread(path)
    assert image.ndim == 3 and image.shape[0] > 50 and image.shape[1] > 50
    assert np.ptp(image[..., :3]) > 0  # not a blank canvas
