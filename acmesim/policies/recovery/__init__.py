"""The recovery plug-ins; every module in this package registers one with ``RECOVERIES``."""

from acmesim.core.registry import Registry

RECOVERIES: Registry = Registry("recovery", package=__name__)
