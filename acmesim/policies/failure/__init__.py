"""The failure plug-ins; every module in this package registers one with ``FAILURES``."""

from acmesim.core.registry import Registry

FAILURES: Registry = Registry("failure", package=__name__)
