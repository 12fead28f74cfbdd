"""The two Acme clusters, Seren and Kalos (Hu et al., NSDI '24).

Sources (acme_facts.md §1): 2,288 GPUs in Seren and 2,416 in Kalos, 8 x A100-SXM 80 GB per node
(hence 286 and 302 nodes), 2 x Xeon 8358P = 128 CPU threads per node, Kalos 2 TB host memory.
Seren's host memory is not published (the paper only says Kalos has the larger memory):
acmesim assumes 1 TB. The InfiniBand topology is not published either (acme_facts.md §10):
acmesim assumes 16 nodes per leaf switch and 8 leaf switches per spine switch. Seren's 6 CPU-only
servers (acme_facts.md §1, hardware mix) form its CPU partition, assumed 128 threads each.

Start-up latency of GPU jobs (``acmesim.model.startup``, scheduled replays only):

- Seren (Slurm, acme_facts.md §1): fitted to the queueing of Debug jobs, the type that waits
  least for GPUs, taken as pure start-up: 84.8% start within 1 s and p95 is 5 s
  (acme_facts.md §2.5, R-FIG) [derived]. A lognormal through both points has median 0.065 s
  and sigma 2.64; it gives p90 1.9 s against the observed 2 s.
- Kalos (Kubernetes, §1): no GPU job starts within 4 s of submission (the minimum) and the
  median queueing delay is 17 s (§2.5, R-SUM), taken as the median start-up [derived]; sigma
  0.8 is chosen (no published spread).
- Both: capped at 600 s [chosen], far beyond every published start-up figure; a launcher
  that starts 50 jobs per second (``launch_interval`` 0.02 s) [chosen: no launch rate is
  published; it sets how long the jobs of one evaluation batch wait for one another to be
  launched, fitted to Seren's evaluation share queued <= 1 s and kept for Kalos; sensitivity in
  ``experiments/fidelity/README.md``].
"""

from __future__ import annotations

import dataclasses

from acmesim.model.presets import CLUSTERS, ClusterOptions, ClusterPreset

SEREN_STARTUP = {"minimum": 0.0, "median": 0.065, "sigma": 2.64, "maximum": 600.0,
                 "launch_interval": 0.02}
"""Seren's start-up latency [derived from Debug's queueing, see the module docstring]."""

KALOS_STARTUP = {"minimum": 4.0, "median": 17.0, "sigma": 0.8, "maximum": 600.0,
                 "launch_interval": 0.02}
"""Kalos's start-up latency [derived: 4 s minimum, 17 s median; sigma chosen]."""


@CLUSTERS.register("seren")
class Seren(ClusterPreset):
    """Seren: 286 nodes x 8 A100-80GB (acme_facts.md §1)."""

    @dataclasses.dataclass(frozen=True)
    class Config(ClusterOptions):
        """Seren's defaults."""

        nodes: int = 286
        memory_per_node_gb: float = 1024.0
        cpu_nodes: int = 6
        startup: dict = dataclasses.field(default_factory=lambda: dict(SEREN_STARTUP))


@CLUSTERS.register("kalos")
class Kalos(ClusterPreset):
    """Kalos: 302 nodes x 8 A100-80GB, 2 TB host memory per node (acme_facts.md §1)."""

    @dataclasses.dataclass(frozen=True)
    class Config(ClusterOptions):
        """Kalos's defaults."""

        nodes: int = 302
        memory_per_node_gb: float = 2048.0
        startup: dict = dataclasses.field(default_factory=lambda: dict(KALOS_STARTUP))
