"""The reservation policies ask ``quota_of`` once per job (``AcmeReservation.quota``): the
oracle is the same policy asking it at every read, on random small traces of every job type;
every table and the preemption count must be equal, and the memo holds no finished job."""

from __future__ import annotations

import pandas as pd
from factories import cluster, frame, job
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.policies.scheduling.acme import Acme
from acmesim.policies.scheduling.acme_reservation import AcmeReservation
from acmesim.run import simulate

TYPES = ("Pretrain", "Eval", "SFT", "MLLM", "Debug", "Other")


def _unmemoized(cls):
    """``cls`` whose ``quota`` is ``quota_of`` asked afresh each time."""
    return type(f"{cls.__name__}Asked", (cls,), {"quota": cls.quota_of})


@st.composite
def traces(draw):
    """Random GPU jobs of every type, 1 to 16 GPUs, integer times."""
    return [job(draw(st.integers(0, 200)), draw(st.integers(1, 90)),
                draw(st.sampled_from([1, 4, 8, 16])), 1 if draw(st.booleans()) else 2,
                type=draw(st.sampled_from(TYPES)), user=draw(st.sampled_from(["u1", "u2"])))
            for _ in range(draw(st.integers(1, 20)))]


def _fixed(rows):
    """Multi-node rows ask whole nodes (8 GPUs a node)."""
    return [dict(r, gpu_num=16) if r["node_num"] == 2 else dict(r, node_num=1) for r in rows]


@settings(max_examples=40, deadline=None, database=None)
@given(traces(), st.sampled_from([Acme, AcmeReservation]),
       st.sampled_from([0, 8]))
def test_memoized_quota_decides_as_asking_it_every_time(rows, cls, debug_above):
    rows = _fixed(rows)
    options = {"reserved_debug_above": debug_above} if cls is Acme else {}
    memo = cls(cls.Config(**options))
    runs = [simulate(frame(rows), cluster(3), policy)
            for policy in (memo, _unmemoized(cls)(cls.Config(**options)))]
    pd.testing.assert_frame_equal(runs[0].jobs, runs[1].jobs)
    pd.testing.assert_frame_equal(runs[0].curve, runs[1].curve)
    assert runs[0].summary["preemptions"] == runs[1].summary["preemptions"]
    assert not memo._quota  # every job finished: none kept
