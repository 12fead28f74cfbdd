"""Fault-path regressions, each a hand-worked case with exact expected times.

- a held interruption frees GPUs: the queue gets them at once and the utilization curve drops;
- faults keep coming while any work remains, queued jobs included;
- a run that would last ~forever fails with a clear error, not a huge allocation;
- the nodes a recovery policy cordons are the nodes taken out of service.
"""

from __future__ import annotations

import pytest
from factories import by_id, cluster, frame, job
from invariants import assert_utilization_matches_jobs

from acmesim.engine import simulate
from acmesim.faults import FaultInjector
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure import FAILURES
from acmesim.policies.recovery import RECOVERIES

PROMPT_PERSON = {"delay_sigma": 0.0, "work_start_hour": 0.0, "work_end_hour": 24.0}
"""A person who always answers with exactly the median delays: 30 min response + 60 min
diagnosis, at any hour (so a manual wait is exact)."""


def trace_model(tmp_path, rows):
    """``failure=trace`` on a CSV of ``rows`` (header first)."""
    path = tmp_path / "faults.csv"
    path.write_text("\n".join(rows) + "\n")
    return FAILURES.create("trace", {"path": str(path)})


def replay(rows, spec, failures, recovery, options, **kwargs):
    """An audited replay of ``rows`` under ``failures`` and recovery ``recovery``."""
    injector = FaultInjector(failures, CHECKPOINTS.create("none"),
                             RECOVERIES.create(recovery, options))
    result = simulate(frame(rows), spec, setup=injector.attach, audit=True, **kwargs)
    return result, injector


# ---------------------------------------------------------------------------- D2
@pytest.mark.parametrize(("recovery", "options", "noticed"), [
    ("manual", PROMPT_PERSON, 0.0),
    # automatic, always escalated: noticed after detection (0) + log 60 + 2 NCCL rounds x 60
    ("automatic", {**PROMPT_PERSON, "manual_fraction": 1.0}, 180.0),
])
def test_a_held_interruption_gives_its_gpus_to_the_queue_at_once(tmp_path, recovery, options,
                                                                 noticed):
    # j0 fills the 4-node cluster; j1..j4 (1 GPU each) queue behind it. A transient fault at
    # 50,000 s interrupts j0; a person takes noticed + 5,400 s to respond and diagnose, and
    # holds j0 meanwhile (no checkpoint: it restarts from 0 with a 600 s manual relaunch).
    faults = trace_model(tmp_path, ["time,node,kind,detection_delay,repair_time",
                                    "50000,n0000,nccl_timeout,0,0"])
    rows = [job(0, 100_000, 32, 4)] + [job(10 + i, 100 * (i + 1), 1) for i in range(4)]
    result, _ = replay(rows, cluster(4), faults, recovery, options)
    jobs = by_id(result.jobs)
    # all 32 GPUs are free from 50,000 s: the four small jobs start then, not when j0 requeues
    for i in range(1, 5):
        assert jobs[f"j{i}"]["start_time"] == 50_000
        assert jobs[f"j{i}"]["end_time"] == 50_000 + 100 * i
    requeued = 50_000 + noticed + 5_400
    assert jobs["j0"]["recovery_wait"] == noticed + 5_400
    assert jobs["j0"]["end_time"] == requeued + 600 + 100_000
    assert jobs["j0"]["run_time"] == 50_000 + 600 + 100_000
    # the curve drops from 32 busy GPUs to the 4 small jobs at the fault, to 0 at 50,400
    curve = result.curve.set_index("time")["busy_gpus"]
    assert curve.loc[50_000] == 4 and curve.loc[50_400] == 0
    assert_utilization_matches_jobs(result)
