"""The reservation family's admission test and counters read the quota memo and a job's held
GPUs in line (``AcmeReservation.admit``, ``_account``): the oracle is the same policy with
both written the straightforward way (``quota``, ``held_gpus``), on random small traces of
every job type; every table and the preemption count must be equal."""

from __future__ import annotations

import pandas as pd
from factories import cluster, frame, job
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.cluster.view import JobInfo
from acmesim.policies.scheduling.acme_reservation import AcmeReservation, held_gpus
from acmesim.run import simulate

TYPES = ("Pretrain", "Eval", "SFT", "MLLM", "Debug", "Other")


class Straightforward(AcmeReservation):
    """``AcmeReservation`` with ``admit`` and ``_account`` asking ``quota`` and ``held_gpus``."""

    def admit(self, job: JobInfo) -> bool:
        if job.pool != "gpu":
            return True
        assert self.guarantee is not None
        reserved = self.quota(job)
        if reserved is not None:
            quota = self.guarantee[reserved]
            used = self.used.get(reserved, 0)
            held = held_gpus(job)
            return used + held <= quota or (used == 0 and held > quota)
        if job.type in self.borrower_types:
            return True
        occupied = len(self.jobs_on)
        return (occupied + job.nodes_needed <= self.shared_nodes
                or (occupied == 0 and job.nodes_needed > self.shared_nodes))

    def _account(self, job: JobInfo, sign: int) -> None:
        reserved = self.quota(job) if job.pool == "gpu" else None
        if reserved is not None:
            self.used[reserved] = self.used.get(reserved, 0) + sign * held_gpus(job)
            return
        if job.pool == "gpu":
            super()._account(job, sign)  # the unreserved part (nodes, borrowers)


@st.composite
def traces(draw):
    """Random GPU jobs of every type, 1 to 16 GPUs, integer times."""
    rows = [job(draw(st.integers(0, 200)), draw(st.integers(1, 90)),
                draw(st.sampled_from([1, 4, 8, 16])), 1 if draw(st.booleans()) else 2,
                type=draw(st.sampled_from(("Pretrain", "Pretrain", *TYPES))))
            for _ in range(draw(st.integers(1, 30)))]
    return [dict(r, gpu_num=16) if r["node_num"] == 2 else dict(r, node_num=1) for r in rows]


@settings(max_examples=40, deadline=None, database=None)
@given(traces(), st.sampled_from([{"Pretrain": 0.67}, {"Pretrain": 0.5, "SFT": 0.34}]))
def test_inlined_admission_decides_as_the_straightforward_rule(rows, quotas):
    """6 nodes: quotas of 4 or 3 and 2 nodes, which 8- and 16-GPU jobs fill in steps."""
    config = AcmeReservation.Config(quotas=quotas, borrowers=("MLLM", "Debug", "Other"))
    runs = [simulate(frame(rows), cluster(6), policy(config))
            for policy in (AcmeReservation, Straightforward)]
    pd.testing.assert_frame_equal(runs[0].jobs, runs[1].jobs)
    pd.testing.assert_frame_equal(runs[0].curve, runs[1].curve)
    assert runs[0].summary["preemptions"] == runs[1].summary["preemptions"]
