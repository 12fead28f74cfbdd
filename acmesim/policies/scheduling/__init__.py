"""The scheduler plug-ins; every module in this package registers one with ``SCHEDULERS``."""

from acmesim.core.registry import Registry

SCHEDULERS: Registry = Registry("scheduler", package=__name__)
