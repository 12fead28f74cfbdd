"""Reliability studies: one job under checkpoints and failures, outside the cluster replay.

Modules (one concept each):

- ``single_job_model``, ``single_job`` (SimPy), ``monte_carlo`` (vectorized twin): one job under
  checkpoints and failures, ETTR and lost work;
- ``recovery_pool``: a recovery plan's single-job summary.

The contracts these studies share with the replay live with their registries:
``acmesim.policies.checkpoint`` (``theory``: Young, Daly eq. 37, the exact Lambert-W optimum, the
test oracles of reliability_facts.md §1; ``model_size``, ``cost``, ``base``: checkpoint size,
sync/async cost and the ``CheckpointPlan``), ``acmesim.policies.failure`` (``rates``, ``kinds``,
``events``, ``job_failures``, ``base``: the ``FailureModel`` contract, ``failure_trace``) and
``acmesim.policies.recovery`` (``base``: the ``RecoveryPlan`` contract). The Seren-like reference
population that checks the ``acme`` failure defaults is ``calibration/reliability.py`` (outside
the package).
"""
