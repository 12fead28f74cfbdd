"""Pluggable policies, one registry per kind: scheduling, placement, prediction, failure,
checkpoint, recovery, power.

Each kind is a package; each policy is one module in it that registers its class with the kind's
registry, next to the kind's contract (``base.py``). Policies decide, the engine acts: a policy
gets a read-only view and returns data.
"""
