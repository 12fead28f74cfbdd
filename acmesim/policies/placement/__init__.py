"""The placement plug-ins; every module in this package registers one with ``PLACEMENTS``."""

from acmesim.core.registry import Registry

PLACEMENTS: Registry = Registry("placement", package=__name__)
