"""A profile scaled to a cluster of ``K`` times its nodes at the same load per GPU.

``scale_profile(profile, K)`` is the what-if lab that is ``K`` times larger. The modeling
choices (no publication describes a larger Acme lab, so each is **chosen**; the sensitivity of
the four published arrival statistics to them is in docs/workload_arrivals.md, "At scale"):

- **K times the teams, the same work per team.** Every job type's group arrivals (evaluation
  batches, sessions, restart chains, CPU sweeps) come ``K`` times as often, with the same group
  sizes, GPU counts, run times and final-state model: every per-job and per-group statistic is
  the profile's, and the offered GPU time per GPU is unchanged (``K`` x the jobs on ``K`` x the
  GPUs). Bigger groups instead (the same number, ``K`` x their sizes) would change every
  per-group statistic (batch sizes, session lengths, sessions spread over ``K`` x the time).
- **K times the users, the same activity law.** The pool holds ``K`` x the users under the
  same Zipf exponent (``USER_ZIPF``). With an exponent above 1 the law's mass is concentrated
  on its first ranks whatever the pool's size: the heaviest accounts (evaluation and data
  pipelines shared by the whole lab) grow with the lab, so the top-5 share stays close to the
  published one (``zipf_shares(400 K, s)[:5]``: 63.7 % at K = 1, 60.7 % at K = 10, 59.9 % at
  K = 44). K separate labs, each with its own pipelines, would divide it by ``K`` instead.
- **Lab-wide storms.** The storms (groups of at least ``array_min`` jobs: the CPU sweeps
  submitted as one array, which set the busiest hour) are as many as the profile's, each ``K``
  times larger (``arrivals.merge_storms`` merges the ``K``-fold storms ``K`` at a time, the job
  count unchanged): a lab-wide sweep (a new data release, a campaign over every team's
  checkpoints) covers the whole lab. Without it the median hour grows ``K``-fold and the
  busiest hour does not (max/median 44 at K = 4, 21 at K = 10, against 272 published).
- **One cluster, one set of quiet spells.** Cluster-wide lulls (maintenance, outages,
  holidays) are properties of the one cluster, so the spells are the profile's (the same
  stream, the same draws).
- **Quotas in GPUs** grow with the cluster: the packer's evaluation quota
  (``QueueModel.low_priority_quota``) is ``K`` x the profile's; the baseline's quotas are shares
  of the cluster already. The packer's backfilling depth (``lookahead``) is kept.
- **The cluster** is the profile's preset with ``cluster.scale=K`` (``K`` x nodes and CPU
  nodes, the same switch sizes, so ``K`` x the leaf and spine switches up to the last
  partly filled one; ``acmesim.cluster.presets.scaled_options``).

What follows for the four published arrival statistics of the whole trace (measured at
K = 1, 4, 10, 44 and their sensitivity to these choices: docs/workload_arrivals.md, "At scale"):
the top-5 share holds; the inter-arrival CV (the same long silent gaps, partly filled by the
``K`` times as many sessions and restart chains under way) and the busiest hour over the
median hour (the lab-wide storms) hold up to K = 10 and drift just outside their tolerances at
K = 44 (10.2 and 127 against 14.7 and 272); the same-second share grows with the rate, as unrelated
submissions share a second more often, and no process can keep it at large K (at K = 44 the
36 M jobs of 183 days in 15.8 M seconds force at least 56 %).

K must be at least 1 and give a whole number of nodes (``K x nodes``), e.g. 1.5 for Seren's
286 nodes (429); anything else is refused with the nearest valid values.
"""

from __future__ import annotations

import dataclasses

from acmesim.cluster.scale import scaled_nodes
from acmesim.synth.profiles import WorkloadProfile


def scale_profile(profile: WorkloadProfile, scale: float) -> WorkloadProfile:
    """``profile`` for ``scale`` x its nodes at the same load per GPU (see module)."""
    nodes = scaled_nodes(profile.nodes, scale, f"profile {profile.name!r}")
    if scale == 1:
        return profile
    users = int(round(profile.users * scale))
    targets = dataclasses.replace(
        profile.targets, nodes=nodes, jobs=round(profile.targets.jobs * scale),
        gpu_jobs=round(profile.targets.gpu_jobs * scale),
        cpu_jobs=round(profile.targets.cpu_jobs * scale),
        total_gpu_time=profile.targets.total_gpu_time * scale)
    queue = dataclasses.replace(profile.queue,
                                low_priority_quota=round(profile.queue.low_priority_quota * scale))
    return dataclasses.replace(
        profile, targets=targets, scale=float(scale), queue=queue,
        gpu_jobs_per_day=profile.gpu_jobs_per_day * scale,
        cpu_jobs_per_day=profile.cpu_jobs_per_day * scale,
        users=users, user_format=_wide_enough(profile.user_format, users))


def _wide_enough(user_format: str, users: int) -> str:
    """``user_format`` with enough digits to name ``users`` distinct users sparsely.

    The profile's ids are drawn without replacement from its digit space (``u{:04d}``: 10,000
    numbers); a pool of more than a tenth of that space gets one more digit per factor of ten.
    """
    digits = user_format.format(0).count("0")
    wanted = digits
    while users * 10 > 10 ** wanted:
        wanted += 1
    if wanted == digits:
        return user_format
    return user_format.replace(f"{{:0{digits}d}}", f"{{:0{wanted}d}}")
