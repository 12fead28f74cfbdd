"""The fault layer's arrival hook is skipped exactly when it would change no job.

Without modeled failures, replaced trace outcomes or checkpoints, preparing an arriving job
does nothing, so the engine does not call it (``Extension.inert_hooks``). The oracle: the
same replay with the hook forced back on gives the same jobs table, for every combination of
failure sources and checkpoint policy below; and the hook is skipped only in the plain case.
"""

from __future__ import annotations

import factories
import pandas as pd
import pytest

from acmesim.core.config import Choice
from acmesim.faults.build import fault_extension
from acmesim.faults.injector import FaultInjector
from acmesim.policies.failure import FAILURES
from acmesim.policies.failure.base import failure_sources
from acmesim.run.simulate import simulate

ROWS = [factories.job(0, 3_600.0, 8, state="FAILED"), factories.job(5, 20.0, 2),
        factories.job(5, 7_200.0, 16, 2, state="NODE_FAIL"), factories.job(9, 0.0, 1),
        factories.job(30, 50_000.0, 4, state="TIMEOUT"), factories.job(31, 10.0, 8)]
GPU_JOBS = len(ROWS)


class Counting(FaultInjector):
    """A fault injector that counts the arrivals it is given."""

    calls = 0

    def on_arrival(self, job):
        self.calls += 1
        super().on_arrival(job)


class Forced(Counting):
    """The same, with its arrival hook never skipped."""

    def attach(self, sim):
        super().attach(sim)
        self.inert_hooks = frozenset()


def _failure(kind: str):
    """A failure model: ``none`` (replays the trace's outcomes), ``none-replace`` (no faults,
    but recorded failures replaced by completions) or ``acme`` (modeled job failures too)."""
    if kind == "acme":
        return FAILURES.create("acme", {"trace_outcomes": "replace"})
    model = FAILURES.create("none")
    if kind == "none-replace":
        model.sources = failure_sources("replace", modeled=False)
    return model


def _replay(cls, failure: str, checkpoint: str):
    built = fault_extension(_failure(failure), Choice(checkpoint), Choice("automatic"))
    injector = cls(built.failure_model, built.checkpoint_policy, built._recovery)
    result = simulate(factories.frame(ROWS), cluster=factories.cluster(4),
                      extensions=[injector], seed=3)
    return injector.calls, result.jobs


@pytest.mark.parametrize("checkpoint", ["none", "young"])
@pytest.mark.parametrize("failure", ["none", "none-replace", "acme"])
def test_skipping_the_hook_changes_nothing_and_happens_only_when_it_is_inert(failure,
                                                                             checkpoint):
    calls, jobs = _replay(Counting, failure, checkpoint)
    forced_calls, forced_jobs = _replay(Forced, failure, checkpoint)
    assert forced_calls == GPU_JOBS
    pd.testing.assert_frame_equal(jobs, forced_jobs)
    inert = failure == "none" and checkpoint == "none"
    assert calls == (0 if inert else GPU_JOBS)
