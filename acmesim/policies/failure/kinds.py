"""Failure kinds: cause mix, scope, detection delay and repair-time distribution of each.

Mix: the 419 unexpected interruptions of Llama 3 405B pretraining by root cause
(reliability_facts.md §2.2; counts sum to 419; we use the counts, not the printed shares, whose
first row is inconsistent). Rows are grouped into the kinds the Acme paper names in its failure
taxonomy (acme_facts.md §3: NVLinkError, CUDAError, ECCError, NCCL errors, NodeFailure, network):

| kind | Llama 3 rows (count) | scope |
|---|---|---|
| ``nvlink_error`` | faulty GPU incl. NVLink (148) | gpu |
| ``cuda_error`` | GSP (17), thermal interface/sensor (6), silent data corruption (6) | gpu |
| ``ecc_error`` | HBM3 (72), SRAM (19) | gpu |
| ``infra_software`` | software bug (54), dependency (2) | node, transient |
| ``switch_failure`` | network switch/cable (35) × ``switch_share`` | switch |
| ``network_error`` | network switch/cable (35) × (1 − ``switch_share``), NIC (7) | node |
| ``nccl_timeout`` | NCCL watchdog timeout (7) | node, transient |
| ``host_maintenance`` | unplanned host maintenance (32) | node |
| ``node_failure`` | SSD, PSU, chassis, IO board, CPU, system memory (3+3+2+2+2+2) | node |

``switch_share`` = 0.5 is **chosen**: the split of switch vs cable faults is not published
(reliability_facts.md §4 [U]).

Detection delay (time until the job observes the fault; reliability_facts §2.12 and §5: 10 s –
5 min, heartbeat 300 s, hang 10 min, up to 30 min): GPU/ECC errors raise an XID error at once
(10 s); node deaths and network faults surface at the 300 s heartbeat/alert timeout (NVRx
subsequent-rank heartbeat 300 s; ByteRobust 2 alerts within 5 min); silent data corruption is
caught by the 300 s loss-spike monitor (InternEvo, acme_facts §4); NCCL hangs last until the
collective watchdog fires at 1,800 s (NVRx first heartbeat 1,800 s [S]; NCCL's 30 min [U]).

Repair time: lognormal (Schroeder & Gibson: HPC repair times are lognormal, < 1 h to > 1 day;
reliability_facts §1.7, §2.12) with **chosen** medians: GPU reset/replacement 4 h, ECC 3 h,
switch 2 h, cable/NIC 1 h, unplanned maintenance 2 h, host part replacement 24 h; ``sigma`` 1.0
(a factor e ≈ 2.7 spread). Transient kinds need no repair (0).
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

from acmesim.policies.failure.events import Scope

if TYPE_CHECKING:
    import numpy as np

HOUR = 3600.0


@dataclasses.dataclass(frozen=True)
class FailureKind:
    """One kind of fault: its weight in the mix, scope, detection delay and repair distribution.

    ``repair_median_h`` = 0 marks a transient fault (no repair). Repair times are lognormal with
    median ``repair_median_h`` hours and log-space standard deviation ``repair_sigma``.
    """

    name: str
    weight: float
    scope: Scope
    detection_s: float
    repair_median_h: float
    repair_sigma: float = 1.0


def llama3_kinds(switch_share: float = 0.5) -> tuple[FailureKind, ...]:
    """The default kinds, weighted by the Llama 3 root-cause counts (module docstring)."""
    if not 0.0 <= switch_share <= 1.0:
        raise ValueError(f"switch_share must be within [0, 1], got {switch_share!r}")
    return (
        FailureKind("nvlink_error", 148, "gpu", 10.0, 4.0),
        FailureKind("cuda_error", 17 + 6 + 6, "gpu", 10.0, 4.0),
        FailureKind("ecc_error", 72 + 19, "gpu", 10.0, 3.0),
        FailureKind("infra_software", 54 + 2, "node", 60.0, 0.0),
        FailureKind("switch_failure", 35 * switch_share, "switch", 300.0, 2.0),
        FailureKind("network_error", 35 * (1 - switch_share) + 7, "node", 300.0, 1.0),
        FailureKind("nccl_timeout", 7, "node", 1800.0, 0.0),
        FailureKind("host_maintenance", 32, "node", 10.0, 2.0),
        FailureKind("node_failure", 3 + 3 + 2 + 2 + 2 + 2, "node", 300.0, 24.0),
    )


@dataclasses.dataclass(frozen=True)
class KindDraws:
    """Vectorized draws for ``n`` faults: kind index, detection delay and repair time (s)."""

    kind: np.ndarray
    detection: np.ndarray
    repair: np.ndarray


class KindMix:
    """Draws fault kinds by weight, each with its own detection delay and repair time."""

    def __init__(self, kinds: tuple[FailureKind, ...]) -> None:
        import numpy as np
        weights = np.array([k.weight for k in kinds], dtype=float)
        if not kinds or (weights < 0).any() or weights.sum() <= 0:
            raise ValueError("a kind mix needs at least one kind and positive total weight")
        self.kinds = kinds
        self.probabilities = weights / weights.sum()
        self._by_name = {k.name: i for i, k in enumerate(kinds)}

    def names(self) -> list[str]:
        """Kind names in mix order."""
        return [k.name for k in self.kinds]

    def index(self, name: str) -> int:
        """Position of kind ``name``; ``KeyError`` when the mix has no such kind."""
        return self._by_name[name]

    def sample(self, rng: np.random.Generator, n: int) -> KindDraws:
        """Draw ``n`` faults: kinds by weight, then detection and repair per kind."""
        kind = rng.choice(len(self.kinds), size=n, p=self.probabilities)
        return KindDraws(kind, self.detection_of(kind), self.repair_of(kind, rng))

    def detection_of(self, kind: np.ndarray) -> np.ndarray:
        """Detection delay in seconds of each kind index."""
        import numpy as np
        table = np.array([k.detection_s for k in self.kinds])
        return table[kind]

    def repair_of(self, kind: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Lognormal repair seconds for each kind index (0 for transient kinds)."""
        import numpy as np
        medians = np.array([k.repair_median_h * HOUR for k in self.kinds])[kind]
        sigmas = np.array([k.repair_sigma for k in self.kinds])[kind]
        normal = rng.standard_normal(len(kind))
        with np.errstate(divide="ignore"):
            return np.where(medians > 0, medians * np.exp(sigmas * normal), 0.0)


def mean_repair_hours(kind: FailureKind) -> float:
    """Mean of a kind's lognormal repair time in hours (``median · e^{σ²/2}``)."""
    return kind.repair_median_h * math.exp(kind.repair_sigma**2 / 2)
