"""The checkpoint plug-ins; every module in this package registers one with ``CHECKPOINTS``."""

from acmesim.core.registry import Registry

CHECKPOINTS: Registry = Registry("checkpoint", package=__name__)
