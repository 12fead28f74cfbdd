"""Failure injection, checkpointing and recovery inside full-cluster replays.

- ``pacing``: a job's checkpoints computed analytically from its compute progress;
- ``jobs``: per-job setup on arrival (checkpoint plan and pace, trace outcomes, job failures);
- ``nodes``: node health through faults and repairs, the hot-spare pool, node downtime;
- ``injector``: the fault stream, interruption and recovery of the jobs hit;
- ``table``: the failures table and the summary's failure-source fields;
- ``build``: the injector a run asks for (registries by name, or plug-in instances).
"""

from acmesim.faults.build import fault_extension, injector_for
from acmesim.faults.injector import FaultInjector
from acmesim.faults.pacing import CheckpointPace

__all__ = ["CheckpointPace", "FaultInjector", "fault_extension", "injector_for"]
