"""Classic supervised training of the Philly/Helios era: mostly 1-8 GPU jobs, hours long.

A user submits a burst of jobs a few minutes apart (new hyper-parameters, a fixed bug,
another dataset); each job draws its GPU count and run time from the class's ``TypeModel``
exactly as an Acme job type does (``jobs.py``: published-percentile quantile function, Gaussian
copula between GPU count and run time). The class is the part of the ``taskdl`` profile fitted
to the prior trace's statistics (``taskdl_calibrate.py``).
"""

from __future__ import annotations

import numpy as np

from acmesim.core.rng import RngStreams
from acmesim.synth.arrivals import expand_groups, group_sizes
from acmesim.synth.distributions import LogQuantile
from acmesim.synth.jobs import assign_states, draw_durations, draw_sizes
from acmesim.synth.profiles import StateModel, TypeModel
from acmesim.synth.table import JobArrays
from acmesim.synth.taskmeta import TaskMeta


def supervised_jobs(streams: RngStreams, model: TypeModel, states: StateModel,
                    starts: np.ndarray) -> tuple[JobArrays, TaskMeta]:
    """Every job of the bursts starting at ``starts``; ``user`` holds the burst index."""
    sizes = group_sizes(streams.stream("supervised/sessions"), model.group, len(starts))
    group, _, submit = expand_groups(streams.stream("supervised/gaps"), model.group,
                                     np.asarray(starts, dtype=np.int64), sizes)
    n = len(group)
    gpus = draw_sizes(streams.stream("supervised/sizes"), model, n).astype(np.int64)
    durations = draw_durations(streams.stream("supervised/durations"), model, gpus,
                               LogQuantile(model.duration_knots))
    work = np.maximum(np.rint(durations), 0).astype(np.int64)
    state = assign_states(streams.stream("supervised/states"), states,
                          (gpus * work).astype(np.float64))
    jobs = JobArrays(
        type_code=np.zeros(n, dtype=np.int16), gpus=gpus, submit=submit.astype(np.int64),
        work=work, state=state, user=group.astype(np.int64),
        klass=np.full(n, model.scheduling_class, dtype=np.int8),
        successor=np.full(n, -1, dtype=np.int64), gap=np.zeros(n, dtype=np.int64),
        start=np.full(n, -1, dtype=np.int64), end=np.full(n, -1, dtype=np.int64),
    )
    return jobs, TaskMeta.plain("supervised", n, group=group)
