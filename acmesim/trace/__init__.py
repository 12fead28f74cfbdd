"""Traces: published files <-> the normalized job table, and the published targets of the trace.

Readers (``loaders``), the Acme writer (``formats``), row validation, the table schema, per-job
GPU utilization and the published statistics (``targets``, ``targets_prior``). The synthetic
generator is ``acmesim.synth``; the trace sources of a run are ``acmesim.sources``.
"""
