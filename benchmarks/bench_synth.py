"""How fast the synthetic generator is: 183 days of Seren (~820k rows) and 123 days of Kalos.

Prints wall times of the phases (sampling the jobs, the node-level packer, then the rest: the
replay under the baseline ``acme`` that sets the recorded starts, its settling, the CPU jobs and
the table), of the whole ``generate_trace`` call, of writing the published CSV and of
``characterize``, plus rows per second and the process's peak memory.

    python benchmarks/bench_synth.py [--seren-days 183] [--kalos-days 123] [--seed 1]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from acmesim.analysis import characterize
from acmesim.synth import generate_trace, get_profile
from acmesim.synth.generate import _Generator
from acmesim.synth.packer import PackerSettings, pack
from acmesim.trace.formats import write_acme_csv


def timed(fn, *args, **kwargs):
    """``(result, seconds)`` of one call."""
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def phases(profile: str, days: float, seed: int) -> None:
    """Sampling, packing and the whole call, for one profile."""
    generator = _Generator(get_profile(profile), days, seed)
    (jobs, latency, deferred), t_sample = timed(generator.plan)
    q = generator.p.queue
    settings = PackerSettings(generator.p.nodes, generator.p.gpus_per_node,
                              q.low_priority_quota, q.lookahead, q.duration_includes_queue,
                              q.min_run)
    _, t_pack = timed(pack, settings, jobs.submit, latency, jobs.work, jobs.gpus, jobs.klass,
                      jobs.successor, jobs.gap, generator.span, deferred)
    table, t_total = timed(generate_trace, profile, days, seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{profile}.csv"
        _, t_write = timed(write_acme_csv, table, path, generator.p.cluster)
        size = path.stat().st_size
    origin = "submit_time" if profile == "kalos" else "start_time"
    _, t_char = timed(characterize, table, duration_origin=origin)
    print(f"{profile}, {days:g} days, seed {seed}: {len(table):,} rows "
          f"({len(jobs.gpus):,} GPU jobs packed incl. warm-up)")
    print(f"  sample GPU jobs      {t_sample:7.2f} s")
    print(f"  node-level packer    {t_pack:7.2f} s  ({len(jobs.gpus) / t_pack:,.0f} jobs/s)")
    rest = t_total - t_sample - t_pack
    print(f"  acme replay, CPU jobs, table {rest:7.2f} s  (total - sample - packer)")
    print(f"  generate_trace total {t_total:7.2f} s  ({len(table) / t_total:,.0f} rows/s)")
    print(f"  write published CSV  {t_write:7.2f} s  ({size / 1e6:.1f} MB)")
    print(f"  characterize         {t_char:7.2f} s")


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seren-days", type=float, default=183.0)
    parser.add_argument("--kalos-days", type=float, default=123.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    phases("seren", args.seren_days, args.seed)
    phases("kalos", args.kalos_days, args.seed)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (max RSS) {peak:,.0f} MB")


if __name__ == "__main__":
    main()
