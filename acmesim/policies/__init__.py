"""Pluggable policies, one registry per kind: scheduling, placement, failure, checkpoint, recovery.

Each kind is a package; each policy is one module in it that registers its class with the kind's
registry. Policies decide, the engine acts: a policy gets a read-only view and returns data.
"""
