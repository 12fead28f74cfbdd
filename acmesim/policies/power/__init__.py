"""The power-model plug-ins; every module in this package registers one with ``POWERS``.

A power model gives a GPU's draw in each state (idle, waiting, running at a utilization), the
GPU servers' other draw and their conversion efficiency; ``acmesim.energy`` turns a replay's
utilization steps and running intervals into power and energy with it.
"""

from acmesim.core.registry import Registry

POWERS: Registry = Registry("power", package=__name__)
