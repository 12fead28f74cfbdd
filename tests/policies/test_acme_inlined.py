"""``acme``'s admission test, counters and key read the pool, team and gang rules and a job's
held GPUs in line (``Acme.admit``, ``_account``, ``key``): the oracle is the same policy with
them written the straightforward way (one small test per rule, ``held_gpus``), on random small
traces of every job type and a few users, with every rule of ``acme`` acting (pool, headroom,
team quota, user cap, gangs, fair turns); every table and the preemption count must be equal."""

from __future__ import annotations

import pandas as pd
from factories import cluster, frame, job
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.cluster.view import JobInfo, SchedulerView
from acmesim.policies.scheduling._gangs import gang_allows
from acmesim.policies.scheduling.acme import Acme
from acmesim.policies.scheduling.acme_reservation import AcmeReservation, held_gpus
from acmesim.run import simulate

TYPES = ("Pretrain", "Eval", "SFT", "MLLM", "Debug", "Other")


class Straightforward(Acme):
    """``Acme`` with ``admit``, ``_account`` and ``key`` asking one rule at a time."""

    def key(self, job: JobInfo, view: SchedulerView) -> tuple[float, ...]:
        klass, submitted = self.class_key(job, view)
        turn = 0
        if self.config.fair_turns and job.type in self.pool_types:
            batch = (job.user, job.submit_time)
            turn = self.turns.get(batch, 0)
            if job.restarts == 0 and job.preemptions == 0:
                self.turns[batch] = turn + 1
        return (klass, turn, submitted)

    def admit(self, job: JobInfo) -> bool:
        gpu = job.pool == "gpu"
        if gpu and job.type in self.pool_types and not self.pool_allows(job):
            return False
        if gpu and job.type in self.team_gpus and not self.team_allows(job):
            return False
        if gpu and job.type in self.capped and not self._user_allows(job):
            return False
        if gpu and job.type in self.config.gang_headroom and not self.gang_allows(job):
            return False
        return AcmeReservation.admit(self, job)

    def gang_allows(self, job: JobInfo) -> bool:
        cluster = self.cluster_view
        return gang_allows(job, cluster.free_gpus_total, cluster.total_gpus, held_gpus(job),
                           self.config.gang_headroom[job.type], self.config.gang_min_nodes)

    def team_allows(self, job: JobInfo) -> bool:
        held = self.team_held.get(job.type, 0)
        return held + held_gpus(job) <= self.team_gpus[job.type] or held == 0

    def pool_allows(self, job: JobInfo) -> bool:
        if self.in_pool(job):
            return True
        headroom = self.config.best_effort.get(job.type)
        return (headroom is not None
                and self.cluster_view.free_gpus_total - held_gpus(job) >= headroom)

    def in_pool(self, job: JobInfo) -> bool:
        return self.pool_held + held_gpus(job) <= self.pool_gpus or self.pool_held == 0

    def _account(self, job: JobInfo, sign: int) -> None:
        gpu = job.pool == "gpu"
        if gpu and job.type in self.capped:
            mine = (job.type, job.user)
            self.user_held[mine] = self.user_held.get(mine, 0) + sign * held_gpus(job)
        if gpu and job.type in self.team_gpus:
            self.team_held[job.type] = self.team_held.get(job.type, 0) + sign * held_gpus(job)
        if gpu and job.type in self.pool_types:
            if sign > 0 and self.in_pool(job):
                self.pooled.add(job.index)
                self.pool_held += held_gpus(job)
            elif sign < 0 and job.index in self.pooled:
                self.pooled.discard(job.index)
                self.pool_held -= held_gpus(job)
        AcmeReservation._account(self, job, sign)


@st.composite
def traces(draw):
    """Random GPU jobs of every type and three users, 1 to 16 GPUs, submissions on a coarse
    grid (so batches of one user and second form), integer run times."""
    rows = [job(10 * draw(st.integers(0, 20)), draw(st.integers(1, 90)),
                draw(st.sampled_from([1, 4, 8, 16])), 1 if draw(st.booleans()) else 2,
                type=draw(st.sampled_from(TYPES)), user=draw(st.sampled_from(("a", "b", "c"))))
            for _ in range(draw(st.integers(1, 30)))]
    return [dict(r, gpu_num=16) if r["node_num"] == 2 else dict(r, node_num=1) for r in rows]


@settings(max_examples=40, deadline=None, database=None)
@given(traces(), st.sampled_from([0.25, 0.5]), st.booleans())
def test_inlined_rules_decide_as_the_straightforward_ones(rows, pool, fair_turns):
    """6 nodes (48 GPUs): a pool of 12 or 24 GPUs, headrooms of 0 and 8 GPUs, MLLM a team of
    8 GPUs (less than its largest jobs), SFT's users capped at 16 GPUs, Other's gangs keeping
    8 GPUs free."""
    config = Acme.Config(pool=pool, fair_turns=fair_turns,
                         best_effort={"Eval": 0, "SFT": 8, "Other": 0},
                         team_quotas={"MLLM": 0.17}, user_caps={"SFT": 0.34},
                         gang_headroom={"Other": 8})
    runs = [simulate(frame(rows), cluster(6), policy(config))
            for policy in (Acme, Straightforward)]
    pd.testing.assert_frame_equal(runs[0].jobs, runs[1].jobs)
    pd.testing.assert_frame_equal(runs[0].curve, runs[1].curve)
    assert runs[0].summary["preemptions"] == runs[1].summary["preemptions"]
