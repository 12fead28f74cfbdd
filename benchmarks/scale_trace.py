"""The synthetic Seren trace and cluster at K times Seren's size, for the scaling benchmarks.

Scale K means K x Seren's nodes at Seren's load per GPU. When the generator takes a ``scale``
argument (``generate_trace(..., scale=K)``, the option behind ``acmesim synth --scale``) and the
cluster preset a ``scale`` option (``cluster.scale=K``), both are used; the scaled trace then
takes its recorded starts from the packer (``starts="packer"``: FIFO's scheduled replay never
reads them). Until then the trace is K independent seeds (``seed`` .. ``seed + K - 1``) of the
same window concatenated, each seed's job and user ids suffixed with ``-k`` (so K user
populations), and the cluster is Seren with K x its GPU nodes (and CPU nodes) under the same
leaf and spine sizes.

Generated seeds are cached as pickles in a directory (written atomically, keyed by profile,
days, seed and scale), so repeated runs do not regenerate them.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import tempfile
import time
from pathlib import Path

import pandas as pd

from acmesim.cluster import CLUSTERS, ClusterSpec, cluster_spec
from acmesim.synth import generate_trace

PROFILE = "seren"


def generator_scales() -> bool:
    """Whether the synthetic generator has a ``scale`` argument."""
    return "scale" in inspect.signature(generate_trace).parameters


def cluster_scales() -> bool:
    """Whether the cluster preset has a ``scale`` option."""
    options = CLUSTERS.config_class(PROFILE)
    return any(field.name == "scale" for field in dataclasses.fields(options))


def scaled_spec(scale: int) -> ClusterSpec:
    """Seren's cluster at ``scale`` x its nodes (see module)."""
    if scale == 1:
        return cluster_spec(PROFILE)
    if cluster_scales():
        return cluster_spec(PROFILE, {"scale": scale})
    base = cluster_spec(PROFILE)
    return cluster_spec(PROFILE, {"nodes": base.nodes * scale,
                                  "cpu_nodes": base.cpu_nodes * scale})


def _cached(path: Path, make) -> pd.DataFrame:
    """The table pickled at ``path``, made (and stored atomically) if absent."""
    if path.exists():
        return pd.read_pickle(path)
    began = time.process_time()
    table = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(dir=path.parent, suffix=".part")
    os.close(handle)
    try:
        table.to_pickle(scratch)
        os.replace(scratch, path)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    print(f"generated {path.name}: {len(table):,} jobs in {time.process_time() - began:.0f} s "
          f"CPU", flush=True)
    return table


def one_seed(days: float, seed: int, cache: Path) -> pd.DataFrame:
    """``generate_trace(PROFILE, days, seed)``, cached."""
    return _cached(cache / f"{PROFILE}-{days:g}d-seed{seed}.pkl",
                   lambda: generate_trace(PROFILE, days, seed))


def concatenated(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """Tables of independent seeds as one trace; part k's job and user ids get ``-k``."""
    if len(parts) == 1:
        return parts[0]
    renamed = []
    for k, part in enumerate(parts):
        part = part.copy()
        part["job_id"] = part["job_id"].astype(str) + f"-{k}"
        part["user"] = part["user"].astype(str) + f"-{k}"
        renamed.append(part)
    return pd.concat(renamed, ignore_index=True)


def scaled_trace(scale: int, days: float, seed: int, cache: Path) -> pd.DataFrame:
    """The synthetic trace at ``scale`` x Seren (see module)."""
    if scale == 1:
        return one_seed(days, seed, cache)
    if generator_scales():
        # starts="packer": a scheduled FIFO replay never reads the recorded starts, and the
        # calibrated baseline's own acme replay would dominate the benchmark at large K
        return _cached(cache / f"{PROFILE}-{days:g}d-seed{seed}-scale{scale}-packer.pkl",
                       lambda: generate_trace(PROFILE, days, seed, scale=scale, starts="packer"))
    return concatenated([one_seed(days, seed + k, cache) for k in range(scale)])
