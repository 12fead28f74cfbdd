"""Generate ``docs/results.md`` from the table schemas: ``python -m acmesim.results.docs``."""

from __future__ import annotations

import sys
from pathlib import Path

from acmesim.core.atomic import atomic_write_text
from acmesim.results.schema import TABLES, TableSchema

INTRO = """# Result files

Every run writes these files into its run directory (atomically: each file is complete or
absent; `eval_requests.csv` and `eval_jobs.csv` only with `eval=coupled` or `eval=decoupled`).
`acmesim.simulate()` returns the same tables in memory, and its result's `save(dir)` writes
exactly these files. A run that fails still writes `summary.csv`, with the error in its `error`
column.

- Times are seconds since the trace start: the earliest submission in the input job table
  (`trace_start` in the summary gives it as a UTC timestamp). Durations are seconds.
- GPU time is GPU-seconds. Empty cells mean "not applicable" (e.g. a statistic of no jobs).
- Same configuration and seed give byte-identical `jobs.csv`, `failures.csv` and
  `utilization.csv`; only `wall_time` and `events_per_second` in `summary.csv` depend on the
  machine.
- `config.yaml` is the resolved configuration of the run (plug-in options with their
  defaults filled in).
- `complete.json` is written last, only by a run that succeeded: the digest of its
  configuration and the size and SHA-256 of every file above. A run directory holds a finished
  result only while that record exists and matches its files; a new run removes it first, then
  the previous run's files and any `.<name>.*.tmp` left by a killed write, so an interrupted run
  (Ctrl-C, SIGTERM, SIGKILL) is never taken as complete. It holds the hash of `summary.csv`, so
  it differs between machines like `wall_time` does.
- How failures, checkpoints and recoveries are played, and the GPU-time identity the columns
  obey, are described in [failures.md](failures.md).
- Start-up latency (scheduled mode, GPU jobs; the cluster's `startup` option,
  `acmesim/cluster/startup.py`): a job started by the scheduler holds its GPUs for its start-up
  latency before it runs. It counts as queueing, as in the Acme trace, whose queue column is
  start − submit with start the moment the job ran: `start_time` is the end of the start-up,
  so `queue_delay` includes it, and `run_time` and `lost_gpu_time` exclude it (the GPUs count
  as allocated and busy in `utilization.csv` meanwhile). Only a job's first start has one; a
  restart pays the restart overhead instead. Recorded mode has none.
- Eligibility delay (scheduled mode, GPU jobs; the cluster's `eligibility` option,
  `acmesim/cluster/eligibility.py`): a job held by its user enters the pending queue only
  after its hold, holding no GPUs meanwhile; its `submit_time` stays its submission, so
  `queue_delay` includes the hold (Slurm counts a held job's queue time from its submission).
  Only a job's first submission is held. Recorded mode has none.
- Power and energy columns (`power_*` in `utilization.csv`, `energy_*` and
  `gpu_server_power_mean_w` in `summary.csv`, `energy_kwh` in `jobs.csv`) are filled by a power
  model (`power=linear|acme`) and are always present but **empty with `power=none`** (the
  default), which attaches nothing to the replay. Energy is wall energy of the GPU servers; how it
  is split by GPU state is in [energy.md](energy.md).

This page is generated from `acmesim/results/schema.py` (whose `jobs.csv` columns are derived
from the job's declaration, `acmesim/jobs/fields.py`) by `python -m acmesim.results.docs`; a test
fails when the two disagree.
"""


def table_markdown(schema: TableSchema) -> str:
    """The section of one table."""
    lines = [f"## `{schema.file_name}`", "", f"One row = {schema.row}.", "",
             "| column | type | unit | meaning |", "|---|---|---|---|"]
    lines += [f"| `{c.name}` | {c.kind} | {c.unit} | {c.meaning} |" for c in schema.columns]
    return "\n".join(lines) + "\n"


def render() -> str:
    """The whole results page."""
    return INTRO + "\n" + "\n".join(table_markdown(t) for t in TABLES)


def main(argv: list[str] | None = None) -> int:
    """Write the page to the given path (default ``docs/results.md``)."""
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else Path("docs/results.md")
    atomic_write_text(target, render())
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
