"""Modeled job failures change the job's modeled work and outcome, never its recorded fields.

Regression: under ``trace_outcomes=replace`` the fault layer used to overwrite ``job.run_time``
(now ``recorded_run_time``) and ``job.trace_state`` with the modeled failure, so the ``oracle``
predictor (and any policy) read the modeled failure time as the trace's recorded run time.
"""

from __future__ import annotations

import factories
import numpy as np

from acmesim.faults.jobs import JobPreparer
from acmesim.policies.checkpoint import CHECKPOINTS
from acmesim.policies.failure.base import failure_sources
from acmesim.policies.failure.events import JobFailure
from acmesim.policies.prediction.oracle import Oracle
from acmesim.run.simulate import simulate

FAILS_AT = 40.0


class FailsEveryJobAt40s:
    """A failure model's job-level part: every job fails after 40 s of work (none of hardware)."""

    sources = failure_sources("replace")

    def job_software_failure(self, job, rng):
        return JobFailure(FAILS_AT, "script_error", "script")

    def job_mtbf(self, gpus, nodes):
        return None


def _replay(rows):
    """Replay ``rows`` with the modeled failures; the oracle's prediction of every arrival."""
    preparer = JobPreparer(FailsEveryJobAt40s(), CHECKPOINTS.create("none"),
                           np.random.default_rng(0))
    oracle, predicted, engine_jobs = Oracle(), {}, {}

    def after_preparer(job):
        predicted[job.job_id] = oracle.predict(job)
        engine_jobs[job.job_id] = job

    result = simulate(factories.frame(rows), cluster=factories.cluster(1),
                      extensions=[factories.OnArrival(preparer),
                                  factories.OnArrival(after_preparer)])
    return factories.by_id(result.jobs), predicted, engine_jobs


def test_oracle_predicts_the_recorded_run_time_of_a_job_the_model_fails():
    jobs, predicted, engine_jobs = _replay([factories.job(0, 100.0, job_id="long", state="FAILED"),
                               factories.job(0, 30.0, job_id="short")])
    assert predicted == {"long": 100.0, "short": 30.0}
    # the engine still plays the modeled failure: the long job ends FAILED after 40 s of work
    assert jobs["long"]["state"] == "FAILED"
    assert jobs["long"]["work_done"] == FAILS_AT
    assert jobs["long"]["end_time"] == FAILS_AT
    assert jobs["long"]["recorded_run_time"] == 100.0
    # the short job ends before its failure; replace turns nothing it recorded into FAILED
    assert jobs["short"]["state"] == "COMPLETED"
    assert jobs["short"]["work_done"] == 30.0
    long = engine_jobs["long"]
    assert (long.recorded_run_time, long.trace_state) == (100.0, "FAILED")


def test_replace_completes_a_recorded_failure_without_rewriting_the_recorded_state():
    jobs, _, engine_jobs = _replay([factories.job(0, 30.0, job_id="j", state="NODE_FAIL")])
    assert jobs["j"]["state"] == "COMPLETED"
    assert engine_jobs["j"].trace_state == "NODE_FAIL"
    assert engine_jobs["j"].outcome == "COMPLETED"
