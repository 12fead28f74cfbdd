"""How many parameters a job's model has, from its type and GPU count (a documented rule).

Rule (an assumption, not a measurement): the Acme clusters train decoder-only LLMs from 7B to
123B parameters (acme_facts.md §1) and the largest job holds 1,024 GPUs (acme_facts.md §2.1,
R-SUM). We place the 123B model at 1,024 GPUs and the 7B model at 64 GPUs (the first quartile of
Seren pretraining jobs, acme_facts.md §2.3) and interpolate a power law between the two anchors,
clamped to [7B, 123B]:

    params(g) = 7e9 · (g / 64) ** (ln(123/7) / ln(1024/64))        (exponent ≈ 1.034)

i.e. parameters grow almost linearly with GPUs (≈ 0.11-0.12 B per GPU). Every job type except
evaluation (inference only) trains a model and so checkpoints; smaller fine-tuning and debug jobs
get the 7B floor. Users override the rule with a fixed ``model_params_b``.
"""

from __future__ import annotations

import math

SMALL_MODEL_PARAMS = 7e9
"""Smallest Acme model (acme_facts.md §1)."""

LARGE_MODEL_PARAMS = 123e9
"""Largest Acme model (acme_facts.md §1)."""

SMALL_MODEL_GPUS = 64
"""GPUs assumed for the 7B anchor (Seren pretraining Q1, acme_facts.md §2.3) — chosen."""

LARGE_MODEL_GPUS = 1024
"""GPUs assumed for the 123B anchor (largest Acme job, acme_facts.md §2.1) — chosen."""

_EXPONENT = math.log(LARGE_MODEL_PARAMS / SMALL_MODEL_PARAMS) / math.log(
    LARGE_MODEL_GPUS / SMALL_MODEL_GPUS
)


def model_params(gpu_num: int) -> float:
    """Parameters of the model a job of ``gpu_num`` GPUs trains, by the module's rule."""
    if gpu_num <= 0:
        return 0.0
    scaled = SMALL_MODEL_PARAMS * (gpu_num / SMALL_MODEL_GPUS) ** _EXPONENT
    return min(max(scaled, SMALL_MODEL_PARAMS), LARGE_MODEL_PARAMS)
