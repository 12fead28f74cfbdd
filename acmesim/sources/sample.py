"""The bundled sample trace (Seren schema), the default workload of ``acmesim replay``."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from acmesim.sources import TRACES

if TYPE_CHECKING:
    import pandas as pd


@TRACES.register("sample")
class SampleTrace:
    """Replays the small sample trace shipped with acmesim."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        """The sample trace takes no options."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def load(self) -> pd.DataFrame:
        """The sample trace as a normalized job table."""
        from acmesim.synth import sample_trace_path
        from acmesim.trace.loaders import load_trace

        return load_trace(sample_trace_path())
