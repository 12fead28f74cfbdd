"""Packaged Hydra configuration of ``acmesim replay`` (the groups come from the registries)."""
