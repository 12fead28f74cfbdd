"""The baseline ``acme``: one hand-worked trace per rule (4 nodes x 8 GPUs, no start-up).

Conventions as in ``test_schedulers.py``: consolidate placement (fullest node that fits,
lowest index on ties), a preempted job resumes after a 40 s restart overhead and keeps its
work. The cluster is named ``t`` (no published mix), so ``pool`` is given explicitly.
"""

from __future__ import annotations

import pytest
from test_schedulers import run

from acmesim.core.errors import ConfigError
from acmesim.policies.scheduling import SCHEDULERS
from acmesim.policies.scheduling.acme import published_pool

POOL_8 = {"pool": 0.25}
"""A pool of 8 of the 32 GPUs."""


def starts(jobs):
    return jobs["start_time"].to_dict()


def test_published_pool_is_the_pool_types_share_of_gpu_time():
    types = ("Eval", "SFT", "MLLM", "Other")
    assert published_pool("seren", types) == pytest.approx(0.062 + 0.064 + 0.086 + 0.076)
    assert published_pool("Kalos", types) == pytest.approx(0.004 + 0.025)
    assert published_pool("tiny", types) == 1.0


def test_pool_types_wait_when_the_pool_is_full():
    # Nothing best-effort: s1 fills the 8-GPU pool, s2 waits for it (t=100) although 24
    # GPUs are free; a Debug job (outside the pool) starts at once.
    rows = [("s1", "a", "SFT", 0, 100, 8, 1), ("s2", "b", "SFT", 0, 100, 8, 1),
            ("d1", "c", "Debug", 0, 50, 8, 1)]
    jobs, _ = run(rows, "acme", nodes=4, options={**POOL_8, "best_effort": {}})
    assert starts(jobs) == {"s1": 0.0, "s2": 100.0, "d1": 0.0}


def test_a_job_larger_than_the_pool_starts_when_the_pool_is_empty():
    rows = [("s1", "a", "SFT", 0, 100, 16, 2)]
    jobs, _ = run(rows, "acme", nodes=4, options=POOL_8)
    assert starts(jobs) == {"s1": 0.0}


def test_evaluation_runs_best_effort_while_it_leaves_the_headroom():
    # Pool 8 GPUs, headroom 8: e1 fills the pool; e2 leaves 32-16 = 16 free, e3 leaves 8: both
    # start best-effort; e4 would leave 0 < 8 and waits for e1's end (t=100).
    rows = [(f"e{i}", "a", "Eval", 0, 100 + i, 8, 1) for i in range(1, 5)]
    jobs, _ = run(rows, "acme", nodes=4, options={**POOL_8, "best_effort": {"Eval": 8}})
    assert starts(jobs) == {"e1": 0.0, "e2": 0.0, "e3": 0.0, "e4": 101.0}


def test_pretraining_reclaims_nodes_from_best_effort_jobs():
    # Three best-effort Eval jobs hold 3 nodes; a 32-GPU pretraining job arrives at t=10 and
    # preempts them all (they borrow), starts at once; the Eval jobs resume after it (t=70)
    # and lose 40 s of restart overhead each (8 GPUs x 40 s).
    rows = [(f"e{i}", "a", "Eval", 0, 100, 8, 1) for i in range(1, 4)]
    rows.append(("p1", "b", "Pretrain", 10, 60, 32, 4))
    jobs, _ = run(rows, "acme", nodes=4, options={**POOL_8, "best_effort": {"Eval": 0}})
    assert jobs.loc["p1", "start_time"] == 10.0
    assert (jobs.loc[["e1", "e2", "e3"], "preemptions"] == 1).all()
    assert (jobs.loc[["e1", "e2", "e3"], "lost_gpu_time"] == 8 * 40.0).all()
    assert (jobs.loc[["e1", "e2", "e3"], "end_time"] == 70 + 40 + 90).all()


def test_submissions_take_fair_turns():
    # Pool of 8 GPUs, nothing best-effort: a1 runs 0..100; a2 and a3 (same submission) and
    # b1 (submitted at t=1 by another user) wait. Fair turns: b1 is its submission's first
    # job, a2 the second of its own, so b1 starts at 100, then a2 at 200, a3 at 300.
    rows = [("a1", "u", "Eval", 0, 100, 8, 1), ("a2", "u", "Eval", 0, 100, 8, 1),
            ("a3", "u", "Eval", 0, 100, 8, 1), ("b1", "v", "SFT", 1, 100, 8, 1)]
    options = {**POOL_8, "best_effort": {}}
    jobs, _ = run(rows, "acme", nodes=4, options=options)
    assert starts(jobs) == {"a1": 0.0, "a2": 200.0, "a3": 300.0, "b1": 100.0}
    fifo, _ = run(rows, "acme", nodes=4, options={**options, "fair_turns": False})
    assert starts(fifo) == {"a1": 0.0, "a2": 100.0, "a3": 200.0, "b1": 300.0}


def test_acme_options_are_checked():
    with pytest.raises(ConfigError, match="pool"):
        SCHEDULERS.create("acme", {"pool": 1.5})
    with pytest.raises(ConfigError, match="headroom"):
        SCHEDULERS.create("acme", {"best_effort": {"Eval": -1}})
    assert SCHEDULERS.make_config("acme").quotas == {"Pretrain": 1.0}


def test_best_effort_gpus_do_not_count_against_the_pool():
    # Pool 8 GPUs, headroom 0: e1 takes the pool (ends at 10), e2 runs best-effort until 100.
    # s1 (SFT, not best-effort) arrives at 20: the pool is empty again, so it starts at once
    # although e2 still holds 8 GPUs.
    rows = [("e1", "a", "Eval", 0, 10, 8, 1), ("e2", "a", "Eval", 0, 100, 8, 1),
            ("s1", "b", "SFT", 20, 50, 8, 1)]
    jobs, _ = run(rows, "acme", nodes=4, options={**POOL_8, "best_effort": {"Eval": 0}})
    assert starts(jobs) == {"e1": 0.0, "e2": 0.0, "s1": 20.0}


def test_multi_node_debug_jobs_run_in_the_pretraining_reservation():
    # Four best-effort Eval jobs hold all 4 nodes (e1, e2 until 100; e3, e4 until 300). A
    # 16-GPU Debug job (two nodes, more than the 8-GPU threshold) arrives at t=10: it runs in
    # pretraining's reservation, so it preempts the two most recently started borrowers (e4,
    # e3) and starts at once. An 8-GPU Debug job (one node) arriving at t=20 stays a borrower:
    # it waits for d1's end at t=60 (Debug goes before the requeued e3 and e4).
    rows = [("e1", "a", "Eval", 0, 100, 8, 1), ("e2", "a", "Eval", 0, 100, 8, 1),
            ("e3", "a", "Eval", 0, 300, 8, 1), ("e4", "a", "Eval", 0, 300, 8, 1),
            ("d1", "b", "Debug", 10, 50, 16, 2), ("d2", "c", "Debug", 20, 50, 8, 1)]
    options = {**POOL_8, "best_effort": {"Eval": 0}, "reserved_debug_above": 8}
    jobs, _ = run(rows, "acme", nodes=4, options=options)
    assert jobs.loc["d1", "start_time"] == 10.0
    assert jobs.loc["d2", "start_time"] == 60.0
    assert jobs["preemptions"].to_dict() == {"e1": 0, "e2": 0, "e3": 1, "e4": 1, "d1": 0,
                                             "d2": 0}
    # Without the rule the 16-GPU Debug job is a borrower too and waits for e1 and e2 (t=100).
    plain, _ = run(rows, "acme", nodes=4, options={**options, "reserved_debug_above": None})
    assert plain.loc["d1", "start_time"] == 100.0
    assert plain["preemptions"].sum() == 0


def test_by_default_every_debug_job_reclaims_a_node_from_best_effort_jobs():
    # Four best-effort Eval jobs hold all 4 nodes until 300 (e4 started last); an 8-GPU Debug
    # job at t=10 is in pretraining's reservation by default: it preempts e4 and starts at
    # once; e4 resumes after it (t=60) with its 40 s restart overhead and 290 s of work left.
    rows = [(f"e{i}", "a", "Eval", 0, 300, 8, 1) for i in range(1, 5)]
    rows.append(("d1", "b", "Debug", 10, 50, 8, 1))
    jobs, _ = run(rows, "acme", nodes=4, options={**POOL_8, "best_effort": {"Eval": 0}})
    assert jobs.loc["d1", "start_time"] == 10.0
    assert jobs["preemptions"].to_dict() == {"e1": 0, "e2": 0, "e3": 0, "e4": 1, "d1": 0}
    assert jobs.loc["e4", "end_time"] == 60 + 40 + 290
    with pytest.raises(ConfigError, match="reserved_debug_above"):
        SCHEDULERS.create("acme", {"reserved_debug_above": -1})


def test_a_team_quota_delays_the_teams_jobs_beyond_it_and_no_others():
    # MLLM as a team with a quota of 8 of the 32 GPUs (rule 6), outside the pool: s1 fills the
    # 8-GPU pool, yet m1 (8 GPUs) starts at once in MLLM's own quota. m2 (4 GPUs, t=5) would
    # take the team to 12 > 8 GPUs and waits for m1's end (t=100) while 8 GPUs stay free;
    # s2 (SFT, 8 GPUs, beyond the pool) starts best-effort at t=5. m3 (16 GPUs, larger than the
    # quota, t=120) starts when the team holds nothing: at m2's end, 100 + 50 = 150.
    rows = [("s1", "a", "SFT", 0, 300, 8, 1), ("m1", "b", "MLLM", 0, 100, 8, 1),
            ("m2", "b", "MLLM", 5, 50, 4, 1), ("s2", "a", "SFT", 5, 300, 8, 1),
            ("m3", "c", "MLLM", 120, 10, 16, 2)]
    options = {**POOL_8, "best_effort": {"SFT": 0, "MLLM": 0}}
    jobs, _ = run(rows, "acme", nodes=4, options={**options, "team_quotas": {"MLLM": 0.25}})
    assert starts(jobs) == {"s1": 0.0, "m1": 0.0, "m2": 100.0, "s2": 5.0, "m3": 150.0}
    # Without the team quota MLLM is a pool type running best-effort: nothing waits.
    plain, _ = run(rows, "acme", nodes=4, options={**options, "team_quotas": {}})
    assert starts(plain) == {"s1": 0.0, "m1": 0.0, "m2": 5.0, "s2": 5.0, "m3": 120.0}
    with pytest.raises(ConfigError, match="team_quotas"):
        SCHEDULERS.create("acme", {"team_quotas": {"MLLM": 1.5}})


def test_by_default_mllm_is_a_team_of_20_percent_of_the_gpus():
    # The default quota: int(0.2 x 32) = 6 GPUs (at 0.17, 5). m1 (4 GPUs) starts at once; m2
    # (2 GPUs, t=5) takes the team to 6 <= 6 and starts at once too (at 0.17 it would wait for
    # m1's end, 100); m3 (2 GPUs, t=10) would take it to 8 > 6 and waits for m2's end (55)
    # while 26 GPUs are free; m4 (8 GPUs, larger than the quota, t=90) starts when the team
    # holds nothing: at m3's end, 55 + 50 = 105 (after m1's, 100). An Other job of m3's shape
    # (outside the team) starts at once.
    rows = [("m1", "b", "MLLM", 0, 100, 4, 1), ("m2", "b", "MLLM", 5, 50, 2, 1),
            ("m3", "b", "MLLM", 10, 50, 2, 1), ("o1", "c", "Other", 10, 50, 2, 1),
            ("m4", "c", "MLLM", 90, 10, 8, 1)]
    options = {**POOL_8, "best_effort": {"MLLM": 0, "Other": 0}}
    jobs, _ = run(rows, "acme", nodes=4, options=options)
    assert starts(jobs) == {"m1": 0.0, "m2": 5.0, "m3": 55.0, "o1": 10.0, "m4": 105.0}
    assert SCHEDULERS.create("acme", {}).config.team_quotas == {"MLLM": 0.2}


def test_a_user_limit_delays_that_users_jobs_beyond_it_and_no_others():
    # A per-user limit of 8 of the 32 GPUs on Other (rule 7): a's o1 (8 GPUs) starts at once;
    # a's o2 (4 GPUs, t=5) would take a to 12 > 8 and waits for o1's end (t=100) while 20 GPUs
    # are free. b's o3, the same shape behind o2, is b's own and starts at t=5 (a user at the
    # limit hides no other). a's SFT job s1 is not limited (t=10, an empty node). b's o4
    # (16 GPUs, larger than the limit, t=12) starts when b holds nothing: at o3's end, 35.
    rows = [("o1", "a", "Other", 0, 100, 8, 1), ("o2", "a", "Other", 5, 50, 4, 1),
            ("o3", "b", "Other", 5, 30, 4, 1), ("s1", "a", "SFT", 10, 10, 8, 1),
            ("o4", "b", "Other", 12, 10, 16, 2)]
    options = {"pool": 1.0, "best_effort": {}, "gang_headroom": {}}
    jobs, _ = run(rows, "acme", nodes=4, options={**options, "user_caps": {"Other": 0.25}})
    assert starts(jobs) == {"o1": 0.0, "o2": 100.0, "o3": 5.0, "s1": 10.0, "o4": 35.0}
    # Without the limit nothing of Other waits but o4, for two whole nodes (s1's end, t=20).
    plain, _ = run(rows, "acme", nodes=4, options=options)
    assert starts(plain) == {"o1": 0.0, "o2": 5.0, "o3": 5.0, "s1": 10.0, "o4": 20.0}
    with pytest.raises(ConfigError, match="user_caps"):
        SCHEDULERS.create("acme", {"user_caps": {"Other": 1.5}})


def test_a_gang_headroom_holds_multi_node_jobs_of_the_type_until_gpus_stay_free():
    # Rule 8, Other's gangs must leave 16 of the 32 GPUs free: o1 (8 GPUs) starts at once;
    # the 2-node gang o2 (t=5) would leave 24 - 16 = 8 < 16 free and waits for o1's end
    # (t=100), when it leaves 16; o3 (8 GPUs, one node, t=6) is no gang and starts at once,
    # and so does the SFT gang s1 (2 nodes, t=7: its type has no headroom), leaving 0 free;
    # at t=57 (o3 and s1 ended) 24 are free, still too few for o2 (it would leave 8).
    rows = [("o1", "a", "Other", 0, 100, 8, 1), ("o2", "a", "Other", 5, 50, 16, 2),
            ("o3", "b", "Other", 6, 50, 8, 1), ("s1", "c", "SFT", 7, 50, 16, 2)]
    options = {"pool": 1.0, "best_effort": {}, "gang_headroom": {}}
    jobs, _ = run(rows, "acme", nodes=4, options={**options, "gang_headroom": {"Other": 16}})
    assert starts(jobs) == {"o1": 0.0, "o2": 100.0, "o3": 6.0, "s1": 7.0}
    # A headroom of 512 GPUs (the earlier default), more than 32 GPUs can leave beside o2: it
    # starts when the cluster is otherwise empty, here at the same t=100.
    large, _ = run(rows, "acme", nodes=4, options={**options, "gang_headroom": {"Other": 512}})
    assert starts(large) == starts(jobs)
    # Without it o2 takes two whole nodes at once (t=5), and s1 waits for its end (t=55).
    plain, _ = run(rows, "acme", nodes=4, options=options)
    assert starts(plain) == {"o1": 0.0, "o2": 5.0, "o3": 6.0, "s1": 55.0}
    # Rule 8 is off by default (Other's tail is its held jobs, the presets' eligibility): the
    # default replays as without it.
    assert SCHEDULERS.create("acme", {}).config.gang_headroom == {}
    default, _ = run(rows, "acme", nodes=4, options={"pool": 1.0, "best_effort": {}})
    assert starts(default) == starts(plain)
    # From 3 nodes on, o2 (2 nodes) is no gang: as without the rule.
    wide, _ = run(rows, "acme", nodes=4,
                  options={**options, "gang_headroom": {"Other": 16}, "gang_min_nodes": 3})
    assert starts(wide) == starts(plain)
    with pytest.raises(ConfigError, match="gang_headroom"):
        SCHEDULERS.create("acme", {"gang_headroom": {"Other": -1}})
