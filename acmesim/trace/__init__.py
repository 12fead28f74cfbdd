"""Workloads: reading published traces, generating calibrated synthetic ones, normalizing jobs."""
