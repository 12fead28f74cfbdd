"""The synthetic Seren trace and cluster at K times Seren's size, for the scaling benchmarks.

Scale K means K x Seren's nodes at Seren's load per GPU: ``generate_trace(..., scale=K)`` (the
option behind ``acmesim synth --scale``) on ``cluster.scale=K``. At K > 1 the trace takes its
recorded starts from the packer (``starts="packer"``: FIFO's scheduled replay never reads them,
and the calibrated baseline's own acme replay would dominate the benchmark at large K).

Generated traces are cached as Parquet files (``acmesim/trace/loaders/parquet.py``: the very
table back, read in a few seconds where the 44x pickle took a minute and twice the memory):

- one file per (profile, days, seed, scale, starts), named by them; the file's metadata
  records those options and a digest of the source of every ``acmesim`` module the generating
  process had loaded (the generator's code, whatever it imports), with their paths;
- a file is taken only if it is a complete Parquet file (its footer reads), its recorded
  options are the ones asked for and the recorded modules still have the recorded digest;
  otherwise it is regenerated and replaced (a file of another version of the generator is
  stale, not a result);
- a file is written atomically (a temporary sibling renamed over the name: ``core/atomic.py``),
  so an interrupted generation leaves no file that could be taken as complete;
- ``ensure_cached`` generates in a child process, so the caller (the benchmark's parent, which
  then starts children that read the file) never holds the table.
"""

from __future__ import annotations

import hashlib
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import acmesim
from acmesim.cluster import ClusterSpec, cluster_spec

PROFILE = "seren"
META_FIELD = b"acmesim_bench_trace"
"""Parquet metadata field: JSON of the generator options, module paths and their digest."""


NO_HOLDS = {"eligibility": {}}
"""The benchmark's cluster holds no job (the preset holds 1.5 % of Other's and 1 % of MLLM's
GPU jobs by default, ``acmesim.cluster.presets.acme.HOLDS``): the reference loop has no
eligibility delay, and its start times must equal acmesim's."""


def scaled_spec(scale: int) -> ClusterSpec:
    """Seren's cluster at ``scale`` x its nodes (``cluster.scale=K``), without held jobs."""
    options = NO_HOLDS if scale == 1 else {**NO_HOLDS, "scale": scale}
    return cluster_spec(PROFILE, options)


def trace_options(scale: int, days: float, seed: int) -> dict:
    """The generator options of the benchmark's trace at ``scale`` (see module)."""
    return {"profile": PROFILE, "days": float(days), "seed": int(seed), "scale": int(scale),
            "starts": "baseline" if scale == 1 else "packer"}


def cache_file(cache: Path, options: dict) -> Path:
    """The cache file of ``options``: named by every option."""
    return cache / (f"{options['profile']}-{options['days']:g}d-seed{options['seed']}"
                    f"-scale{options['scale']}-{options['starts']}.parquet")


def source_digest(modules: list[str]) -> str:
    """SHA-256 of the named source files of ``acmesim`` (paths relative to the package; a
    missing file counts as its path alone, so removing a module changes the digest)."""
    root = Path(acmesim.__file__).parent
    digest = hashlib.sha256()
    for name in sorted(modules):
        path = root / name
        digest.update(name.encode() + b"\0")
        digest.update((path.read_bytes() if path.is_file() else b"<missing>") + b"\0")
    return digest.hexdigest()


def loaded_modules() -> list[str]:
    """Source files (relative to the package) of every ``acmesim`` module loaded here."""
    root = Path(acmesim.__file__).parent.resolve()
    found = set()
    for module in list(sys.modules.values()):
        origin = getattr(module, "__file__", None)
        if origin and Path(origin).resolve().is_relative_to(root):
            found.add(Path(origin).resolve().relative_to(root).as_posix())
    return sorted(found)


def recorded(path: Path) -> dict | None:
    """The metadata a complete cache file records; ``None`` if there is no readable file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_schema(path).metadata or {}
    except (pa.ArrowException, OSError, ValueError):
        return None  # absent, truncated (no footer) or not Parquet
    try:
        return json.loads(metadata[META_FIELD])
    except (KeyError, ValueError):
        return None


def is_current(path: Path, options: dict) -> bool:
    """Whether ``path`` is a complete cache file of ``options`` by the current generator."""
    meta = recorded(path)
    return (meta is not None and meta.get("options") == options
            and meta.get("digest") == source_digest(meta.get("modules", [])))


def generate_into(path: Path, options: dict) -> int:
    """Generate the trace of ``options`` and write it to ``path`` atomically with its
    metadata (see module); the number of rows."""
    from acmesim.synth import generate_trace
    from acmesim.trace.loaders.parquet import write_parquet

    jobs = generate_trace(options["profile"], options["days"], options["seed"],
                          scale=options["scale"], starts=options["starts"])
    modules = loaded_modules()
    meta = {"options": options, "modules": modules, "digest": source_digest(modules)}
    write_parquet(jobs, path, metadata={META_FIELD: json.dumps(meta).encode()})
    return len(jobs)


def ensure_cached(scale: int, days: float, seed: int, cache: Path) -> Path:
    """The cache file of the trace at ``scale``, generated in a child process if it is not
    current (see module)."""
    options = trace_options(scale, days, seed)
    path = cache_file(cache, options)
    if is_current(path, options):
        return path
    began = time.perf_counter()
    code = ("import json, sys; from pathlib import Path; import scale_trace; "
            "print(scale_trace.generate_into(Path(sys.argv[1]), json.loads(sys.argv[2])))")
    done = subprocess.run([sys.executable, "-c", code, str(path), json.dumps(options)],
                          cwd=Path(__file__).resolve().parent, capture_output=True, text=True)
    if done.returncode != 0 or not is_current(path, options):
        raise SystemExit(f"generating {path.name} failed:\n{done.stderr[-4000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"generated {path.name}: {int(done.stdout.split()[-1]):,} jobs in "
          f"{time.perf_counter() - began:.0f} s wall, peak RSS of a child so far "
          f"{peak:,.0f} MB", flush=True)
    return path
