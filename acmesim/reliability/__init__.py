"""Reliability: checkpoint theory and costs, failure and recovery models, single-job simulation.

Modules (one concept each):

- ``theory``: Young, Daly eq. 37, the exact Lambert-W optimum, Daly's expected wall time and
  efficiency (pure functions, the test oracles of reliability_facts.md §1);
- ``model_size``, ``checkpoint_cost``, ``checkpointing``: how big a job's checkpoint is, what it
  costs in sync/async mode, and the ``CheckpointPlan`` every checkpoint policy returns;
- ``rates``, ``kinds``, ``events``, ``job_failures``, ``failure_model``, ``failure_trace``: failure
  rates, the cause mix, ``FailureEvent``/``JobFailure``/``ClusterInfo`` and the ``FailureModel``
  contract the engine consumes;
- ``recovery``, ``recovery_pool``: the ``RecoveryPlan`` contract and its single-job summary;
- ``single_job_model``, ``single_job`` (SimPy), ``monte_carlo`` (vectorized twin): one job under
  checkpoints and failures, ETTR and lost work;
- ``calibration``: the Seren-like reference population that checks the ``acme`` failure defaults.

The registered policies live in ``acmesim.policies.checkpoint``, ``.failure`` and ``.recovery``.
"""
