"""One-line notes for settings a user gave that cannot change the run's results.

A sweep over ``seed`` on a fixed trace, or over checkpoint or recovery policies without a
failure model, produces identical runs; the replay says why, once per message, instead of
leaving the user to discover it. The checks ask the plug-ins how they behave (no policy names):

- a failure model whose jobs never fail (``job_mtbf`` is infinite) injects nothing, so
- ``seed`` changes nothing: only failure injection and recovery draw random numbers (the
  trace is the trace; ``trace.seed`` seeds a synthetic one);
- a checkpoint policy that does not checkpoint a job that cannot fail (Young, Daly, optimal:
  their interval follows the failure rate) gives the result of ``checkpoint=none``;
- a recovery policy that holds back no spare nodes has nothing to recover;
- an evaluation mode (``eval=``) in a recorded replay: every job starts when the trace did, so
  no evaluation mode is attached (``acmesim.run.lifecycle``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from acmesim.core.config import ReplayConfig

PROBE_JOB = {"job_id": "probe", "type": "Pretrain", "gpu_num": 64, "node_num": 8}
"""A job that would checkpoint if it could fail (64-GPU pretraining, 8 nodes)."""


def jobs_can_fail(config: ReplayConfig) -> bool:
    """True unless the failure model says no job ever fails (infinite job MTBF)."""
    from acmesim.policies.failure import FAILURES

    model = FAILURES.create(config.failure.name, config.failure.options)
    mtbf = model.job_mtbf(PROBE_JOB["gpu_num"], PROBE_JOB["node_num"])
    return mtbf is None or math.isfinite(mtbf)


def checkpoints_without_failures(config: ReplayConfig) -> bool:
    """True when the checkpoint policy checkpoints even a job that cannot fail."""
    from acmesim.policies.checkpoint import CHECKPOINTS

    policy = CHECKPOINTS.create(config.checkpoint.name, config.checkpoint.options)
    return bool(policy.plan(PROBE_JOB, math.inf).enabled)


def reserves_spares(config: ReplayConfig, num_nodes: int = 100) -> bool:
    """True when the recovery policy holds nodes back from scheduling (hot spares)."""
    from acmesim.policies.recovery import RECOVERIES

    policy = RECOVERIES.create(config.recovery.name, config.recovery.options, epoch_unix=0.0)
    return policy.reserved_nodes(num_nodes) > 0


def no_effect_notes(config: ReplayConfig, given: Iterable[str]) -> list[str]:
    """A note for each of the ``given`` keys (``seed``, ``checkpoint``, ...) that has no effect."""
    keys = {key.split(".")[0] for key in given}
    notes = []
    if "eval" in keys and config.mode == "recorded" and config.eval.name != "none":
        notes.append(f"note: eval={config.eval.name} cannot change the results: a recorded "
                     f"replay starts every job when the trace did, so no evaluation mode is "
                     f"attached (mode=scheduled replays them)")
    if jobs_can_fail(config):
        return notes
    failure = f"failure={config.failure.name}"
    if "seed" in keys:
        notes.append(f"note: seed cannot change the results: only failure "
                     f"injection and recovery draw random numbers, and with {failure} no job "
                     f"fails (trace.seed seeds a synthetic trace)")
    if "checkpoint" in keys and not checkpoints_without_failures(config):
        notes.append(f"note: checkpoint={config.checkpoint.name} cannot change the results: "
                     f"with {failure} no job can fail, so it never checkpoints (the same "
                     f"result as checkpoint=none)")
    if "recovery" in keys and not reserves_spares(config):
        notes.append(f"note: recovery={config.recovery.name} cannot change the results: with "
                     f"{failure} there is no failure to recover from")
    return notes
