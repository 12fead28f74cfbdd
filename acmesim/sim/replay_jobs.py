"""One bare replay of a job table: registered plug-ins by name, no extensions, no files.

What the synthetic generator's baseline (``acmesim.synth.baseline``) needs from the simulator:
the jobs table of a scheduled or recorded replay under a named scheduler, and the engine's
``Job`` objects as they arrive. The full entry point (energy, scheduler hooks, summary) is
``acmesim.simulate``; with those off it builds the same ``Simulation`` as this function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import pandas as pd

from acmesim.cluster.spec import ClusterSpec
from acmesim.policies.placement import PLACEMENTS
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.sim.extension import Extension
from acmesim.sim.job import Job
from acmesim.sim.jobs_frame import jobs_frame
from acmesim.sim.simulation import Simulation
from acmesim.sim.trace_input import prepare_jobs


def replay_jobs(jobs: pd.DataFrame, spec: ClusterSpec, scheduler: str, *,
                mode: Literal["recorded", "scheduled"] = "scheduled", seed: int = 0,
                placement: str = "consolidate",
                on_arrival: Callable[[Job], None] | None = None,
                extensions: Sequence[Extension] = ()) -> pd.DataFrame:
    """The jobs table (schema ``JOBS``) of ``jobs`` replayed on ``spec`` under ``scheduler``.

    ``scheduler`` and ``placement`` are registered names (default options); ``on_arrival``
    is called with each engine ``Job`` as it arrives; ``extensions`` are attached as well.
    """
    table = prepare_jobs(jobs, spec, mode=mode)
    probes: list[Extension] = [ArrivalProbe(on_arrival)] if on_arrival is not None else []
    probes += list(extensions)
    sim = Simulation(table, spec, SCHEDULERS.create(scheduler), PLACEMENTS.create(placement),
                     mode=mode, seed=seed, extensions=probes)
    sim.run()
    return jobs_frame(table, sim.jobs, sim.cluster.topology.node_names)


class ArrivalProbe(Extension):
    """An extension that only shows each arriving engine ``Job`` to a callback."""

    def __init__(self, callback: Callable[[Job], None]) -> None:
        self.callback = callback

    def on_arrival(self, job: Job) -> None:
        """Show ``job`` to the callback."""
        self.callback(job)
