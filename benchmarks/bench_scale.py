"""Scaling: acmesim against a minimal heapq loop, 183 days of synthetic Seren at K x its size.

For each scale K (``scale_trace.py``: K x Seren's nodes at Seren's load per GPU) the trace is
generated once (in a child process) into a Parquet cache file keyed by profile, days, seed,
scale and the generator's code; then, each in a fresh process reading that file (so CPU time
and peak RSS, ``VmHWM``, are its own; the parent never holds the trace), the benchmark times
``simulate(path, cluster, "fifo", "consolidate")`` (reading and validating the file, the event
loop and the result tables: a run that reads its trace itself frees the input table once the
engine's job table is built) and the reference loop (``reference_loop.py``; reading the file
and building its input are timed apart). Every job's start
time must be bit-equal in both, and its nodes the same: on any difference the first differing
jobs are printed and the exit status is 1.

    python benchmarks/bench_scale.py [--scales 1 4 10] [--days 183] [--seed 1]
        [--cache DIR] [--schedulers [NAME ...] [--pairs N]] [--failures [--checkpoint young]]
        [--acmesim-only]

``--schedulers`` also times every registered scheduler (or the ones named) at each scale and
prints its CPU ratio to FIFO (target: under 2x; ``eval_decoupled`` under 3x; with ``--pairs N``
each scheduler runs N times, each run right after a FIFO run of its own, and the ratio is the
median of the N pairs); ``--failures``
times ``failure=acme checkpoint=<--checkpoint>(async) recovery=automatic`` against the
failure-free FIFO replay (target: under 1.3x), both ratios of the replays (the CPU of
reading the file, timed alone in a child of its own, taken off both sides);
``--acmesim-only`` runs acmesim alone (no reference loop, no start-time check: for the 183-day
44x run, whose reference input exceeds 12 GB). The peak memory printed is the ``VmHWM`` of
the child that ran ``simulate()``, its ``ru_maxrss`` beside it. CPU time is the measure (other
processes on a shared machine inflate wall time); wall time is printed beside it. A second
table gives the cost per event and per GPU job at each scale as multiples of the first scale's
(issue 15: per event within 1.2x), for the replay, for acmesim's event loop alone
(``Simulation.run``, its CPU timed by wrapping it in the child) and for the reference loop.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "acmesim-bench"
TARGET_RATIO = 4.0
"""Issue 15: acmesim within 4x of the reference loop's CPU."""


def _peak_rss_mb() -> float:
    """Peak resident memory of this process so far (MB): its own high-water mark (``VmHWM``
    of ``/proc/self/status``, which starts afresh at ``exec``). ``ru_maxrss`` is the fallback
    where there is no ``/proc``: on Linux a child's also counts the parent's high-water mark at
    the fork (the parent here holds the trace), so it would overstate the child's peak."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _stored_trace(path: Path):
    """The cached trace, read back from Parquet: the very table, validated once
    (``simulate`` then skips its checks); its peak memory is about the table's own, where
    unpickling a table of Arrow text columns peaks at about twice it."""
    from acmesim.trace.loaders.parquet import read_parquet_trace

    return read_parquet_trace(path)[0]


def _flat_nodes(nodes: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Node lists as one int32 array plus offsets."""
    sizes = np.fromiter((len(n) for n in nodes), dtype=np.int64, count=len(nodes))
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    flat = np.fromiter((node for group in nodes for node in group), dtype=np.int32,
                       count=int(offsets[-1]))
    return flat, offsets


def _flat_node_names(names) -> tuple[np.ndarray, np.ndarray]:
    """acmesim's ``nodes`` cells (``n0003;n0004``; empty for none) as ``_flat_nodes`` gives
    them, parsed by Arrow: no Python list per job (at 44x, 20 M lists took the replay's
    process over its own peak)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    cells = pa.array(names, type=pa.string())
    cells = pc.if_else(pc.equal(cells, ""), pa.scalar(None, pa.string()), cells)
    lists = pc.split_pattern(cells, ";")
    sizes = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False)
    flat = pc.cast(pc.utf8_slice_codeunits(pc.list_flatten(lists), 1), pa.int32())
    offsets = np.concatenate(([0], np.cumsum(sizes, dtype=np.int64)))
    return flat.to_numpy(zero_copy_only=False), offsets


def _positions(ids, table_ids) -> np.ndarray:
    """Position in ``table_ids`` of each of ``ids`` (its first occurrence; -1 if absent), by an
    arrow hash table (tens of millions of ids, no Python string each)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    found = pc.index_in(pa.array(ids.astype(str)), value_set=pa.array(table_ids.astype(str)))
    return pc.fill_null(found, -1).to_numpy().astype(np.int64)


def _timed_loop(simulation: type) -> dict:
    """Wrap ``simulation.run`` (the event loop alone) so that its CPU seconds add up in the
    returned dict's ``cpu_s`` (the reference loop's figure is its loop alone too)."""
    timed = {"cpu_s": 0.0}
    run = simulation.run

    def timed_run(self) -> None:
        began = time.process_time()
        try:
            run(self)
        finally:
            timed["cpu_s"] += time.process_time() - began

    simulation.run = timed_run
    return timed


def child_acmesim(args: argparse.Namespace) -> dict:
    """Time one acmesim replay of the stored trace, read by ``simulate`` itself (reading and
    validating the file included); store its starts and nodes if asked."""
    from scale_trace import scaled_spec

    import acmesim.sources.file  # noqa: F401 - the loaders imported before the clock starts
    import acmesim.trace.loaders.parquet  # noqa: F401
    from acmesim import simulate
    from acmesim.sim.simulation import Simulation

    loop = _timed_loop(Simulation)
    spec = scaled_spec(args.scale)
    faults = ({"failure": "acme", "checkpoint": {"name": args.checkpoint, "mode": "async"},
               "recovery": "automatic"} if args.failures else {})
    wall, cpu = time.perf_counter(), time.process_time()
    # from the file, as `acmesim replay trace=file trace.path=...` runs: the run then holds the
    # input table only until the engine's own job table is built
    result = simulate(args.trace, spec, args.scheduler, "consolidate", **faults)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    out = {"jobs": int(result.summary["simulated_jobs"]), "events": int(result.summary["events"]),
           "cpu_s": cpu, "loop_cpu_s": loop["cpu_s"], "wall_s": wall,
           "run_wall_s": result.summary["wall_time"],
           "peak_rss_mb": _peak_rss_mb(),
           "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "gpus": spec.total_gpus}
    if args.failures:
        out["failures"] = int(result.summary["failures"])
    if args.out:
        jobs = result.jobs
        rows = _positions(jobs["job_id"], _job_ids(args.trace))
        flat, offsets = _flat_node_names(jobs["nodes"])
        np.savez(args.out, rows=rows, starts=jobs["start_time"].to_numpy(dtype=float),
                 nodes=flat, offsets=offsets)
    return out


def child_read(args: argparse.Namespace) -> dict:
    """Time reading the stored trace alone (the part of acmesim's CPU that is not the replay:
    ``simulate`` reads and validates the file as this does)."""
    import acmesim  # noqa: F401 - imported before the clock starts, as in the acmesim child
    import acmesim.trace.loaders.parquet  # noqa: F401

    wall, cpu = time.perf_counter(), time.process_time()
    rows = len(_stored_trace(args.trace))
    return {"rows": rows, "cpu_s": time.process_time() - cpu,
            "wall_s": time.perf_counter() - wall, "peak_rss_mb": _peak_rss_mb()}


def child_reference(args: argparse.Namespace) -> dict:
    """Time the reference loop on the stored trace; store its starts and nodes."""
    from reference_input import reference_jobs
    from reference_loop import replay_fifo
    from scale_trace import scaled_spec

    trace = _stored_trace(args.trace)
    spec = scaled_spec(args.scale)
    cpu = time.process_time()
    given = reference_jobs(trace, spec)
    input_cpu = time.process_time() - cpu
    del trace
    wall, cpu = time.perf_counter(), time.process_time()
    replay = replay_fifo(given.jobs, spec.nodes, spec.gpus_per_node,
                         nodes_per_leaf=spec.nodes_per_leaf,
                         leaves_per_spine=spec.leaves_per_spine,
                         launch_interval=spec.startup.launch_interval)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    out = {"jobs": len(given.jobs), "events": replay.events, "cpu_s": cpu, "wall_s": wall,
           "input_cpu_s": input_cpu, "peak_rss_mb": _peak_rss_mb()}
    flat, offsets = _flat_nodes(replay.nodes)
    np.savez(args.out, rows=np.asarray(given.rows), starts=np.asarray(replay.starts),
             nodes=flat, offsets=offsets)
    return out


CHILDREN = {"acmesim": child_acmesim, "reference": child_reference, "read": child_read}
"""What each kind of child process times."""


def run_child(kind: str, trace: Path, scale: int, *extra: str) -> dict:
    """Run one child process and return the JSON line it prints."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind,
               "--trace", str(trace), "--scales", str(scale), *extra]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the {kind} run at scale {scale} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(acme_path: Path, ref_path: Path, job_ids) -> list[str]:
    """Problems found comparing the stored outputs (empty if starts and nodes are identical);
    ``job_ids()`` gives the trace's job ids by row, read only to name differing jobs."""
    acme, ref = np.load(acme_path), np.load(ref_path)
    if len(acme["rows"]) != len(ref["rows"]):
        return [f"acmesim replayed {len(acme['rows']):,} GPU jobs, the reference "
                f"{len(ref['rows']):,}"]
    if not np.array_equal(acme["rows"], ref["rows"]):
        ids = job_ids()
        first = int(np.flatnonzero(acme["rows"] != ref["rows"])[0])
        return [f"the job order differs from position {first}: acmesim job "
                f"{ids[acme['rows'][first]]!r}, reference {ids[ref['rows'][first]]!r}"]
    problems = []
    differ = np.flatnonzero(acme["starts"] != ref["starts"])
    if len(differ):
        ids = job_ids()
        problems.append(f"START TIMES DIFFER for {len(differ):,} of {len(acme['rows']):,} jobs; "
                        f"first ones:")
        problems += [f"  #{i} job {ids[ref['rows'][i]]!r}: reference {float(ref['starts'][i])!r} "
                     f"s, acmesim {float(acme['starts'][i])!r} s" for i in differ[:10]]
    if not (np.array_equal(acme["offsets"], ref["offsets"])
            and np.array_equal(acme["nodes"], ref["nodes"])):
        problems.append("node assignments differ (start times alone cannot see the leaf and "
                        "spine rules)")
    return problems


def measure_scale(scale: int, args: argparse.Namespace, tmp: Path) -> dict:
    """Run both sides and the options on the cached trace at ``scale``; one row of figures.

    The trace is generated (in a child, if not cached) and read by each child from the cache
    file: this process never holds it, so only one copy of a 44x table is ever in memory."""
    from scale_trace import ensure_cached

    path = ensure_cached(scale, args.days, args.seed, args.cache)
    acme_out, ref_out = tmp / f"acme-x{scale}.npz", tmp / f"ref-x{scale}.npz"
    if args.acmesim_only:
        row = {"scale": scale, "acmesim": run_child("acmesim", path, scale), "problems": []}
    else:
        row = {"scale": scale,
               "acmesim": run_child("acmesim", path, scale, "--out", str(acme_out)),
               "reference": run_child("reference", path, scale, "--out", str(ref_out))}
        row["problems"] = compare(acme_out, ref_out, lambda: _job_ids(path))
        if row["acmesim"]["events"] != row["reference"]["events"]:
            row["problems"].append(f"events differ: acmesim {row['acmesim']['events']:,}, "
                                   f"reference {row['reference']['events']:,}")
    row["read"] = run_child("read", path, scale)
    print(json.dumps({k: v for k, v in row.items() if k != "problems"}), flush=True)
    for name in args.schedulers or ():
        pairs = []
        for _ in range(args.pairs):  # each timed right after a FIFO run of its own
            fifo = run_child("acmesim", path, scale) if args.pairs > 1 else row["acmesim"]
            pairs.append((fifo["cpu_s"], run_child("acmesim", path, scale, "--scheduler", name)))
        row.setdefault("schedulers", {})[name] = {**pairs[-1][1],
                                                  "pairs": [(f, o["cpu_s"]) for f, o in pairs]}
        print(json.dumps({"scale": scale, name: row["schedulers"][name]}), flush=True)
    if args.failures:
        row["failures"] = run_child("acmesim", path, scale, "--failures",
                                    "--checkpoint", args.checkpoint)
        print(json.dumps({"scale": scale, "failures": row["failures"]}), flush=True)
    return row


def _job_ids(path: Path):
    """The ``job_id`` column of the trace file alone, indexable by row (an Arrow array: no
    Python string per row)."""
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=["job_id"])["job_id"].to_pandas().array


def print_table(rows: list[dict]) -> None:
    """The main table: one line per scale. ``acmesim CPU s`` is the whole ``simulate(path)``
    call, ``read s`` the CPU of reading the file alone (its own child); µs per event and per
    GPU job and the ratio to the reference are of the replay, the difference of the two."""
    print(f"\nFIFO + consolidate, {rows[0]['days']:g} days of synthetic Seren "
          f"(CPU s of simulate(path), reading the file included; replay = that minus "
          f"reading; reference: the heapq loop alone)")
    print(f"{'scale':>5} {'GPUs':>7} {'GPU jobs':>10} {'events':>11} {'acmesim CPU s':>13} "
          f"{'read s':>6} {'wall s':>7} {'µs/event':>8} {'µs/job':>7} {'peak RSS MB':>11} "
          f"{'ref CPU s':>9} {'ratio':>6} {'identical':>9}")
    for row in rows:
        acme, ref = row["acmesim"], row.get("reference")
        replay = acme["cpu_s"] - row["read"]["cpu_s"]
        against = (f"{ref['cpu_s']:>9.2f} {replay / ref['cpu_s']:>6.1f} "
                   f"{'yes' if not row['problems'] else 'NO':>9}" if ref else
                   f"{'-':>9} {'-':>6} {'unchecked':>9}")
        print(f"{row['scale']:>4}x {acme['gpus']:>7,} {acme['jobs']:>10,} {acme['events']:>11,} "
              f"{acme['cpu_s']:>13.1f} {row['read']['cpu_s']:>6.1f} {acme['wall_s']:>7.1f} "
              f"{replay / acme['events'] * 1e6:>8.1f} "
              f"{replay / acme['jobs'] * 1e6:>7.1f} {acme['peak_rss_mb']:>11,.0f} "
              f"{against}")
    for row in rows:
        ref, acme = row.get("reference"), row["acmesim"]
        about = (f"{row['scale']}x reference: wall {ref['wall_s']:.2f} s, peak RSS "
                 f"{ref['peak_rss_mb']:,.0f} MB, building its input {ref['input_cpu_s']:.1f} s "
                 f"CPU; " if ref else f"{row['scale']}x (no reference run: --acmesim-only): ")
        print(f"{about}acmesim run wall {acme['run_wall_s']:.1f} s, peak of the simulate() "
              f"child: VmHWM {acme['peak_rss_mb']:,.0f} MB, ru_maxrss "
              f"{acme['maxrss_mb']:,.0f} MB; reading alone: peak {row['read']['peak_rss_mb']:,.0f} "
              f"MB")


def growth(rows: list[dict]) -> list[dict]:
    """Per scale: µs per event of acmesim's replay (``acmesim CPU s`` less ``read s``), of its
    event loop alone (``Simulation.run``; ``None`` if not timed) and of the reference loop
    (``None`` without one), µs per GPU job of the replay, and each as a multiple of the first
    scale's (issue 15 asks the cost per event to stay within 1.2x)."""
    out = []
    for row in rows:
        acme, ref = row["acmesim"], row.get("reference")
        replay = acme["cpu_s"] - row["read"]["cpu_s"]
        loop = acme.get("loop_cpu_s")
        out.append({"scale": row["scale"], "event": replay / acme["events"] * 1e6,
                    "job": replay / acme["jobs"] * 1e6,
                    "loop_event": loop / acme["events"] * 1e6 if loop is not None else None,
                    "ref_event": ref["cpu_s"] / ref["events"] * 1e6 if ref else None})
    first = out[0]
    for item in out:
        for name in ("event", "job", "loop_event", "ref_event"):
            base = first[name]
            item[f"{name}_x"] = (item[name] / base if item[name] is not None and base
                                 else None)
    return out


def print_growth(rows: list[dict]) -> None:
    """The cost per event and per GPU job at each scale as multiples of the first scale's:
    acmesim's replay, its event loop alone, and the reference loop (the growth of the loop of
    least overhead with the same rules)."""
    def cell(value: float | None, spec: str) -> str:
        return "-" if value is None else format(value, spec)

    first = rows[0]["scale"]
    print(f"\nGrowth against {first}x: µs per event and per GPU job of the replay, µs per event "
          f"of acmesim's event loop alone (Simulation.run) and of the reference loop; x = "
          f"multiple of the {first}x figure (target: per event within 1.2x)")
    print(f"{'scale':>5} {'events/job':>10} {'µs/event':>8} {'x':>5} {'µs/job':>7} {'x':>5} "
          f"{'loop µs/event':>13} {'x':>5} {'ref µs/event':>12} {'x':>5}")
    for row, item in zip(rows, growth(rows), strict=True):
        acme = row["acmesim"]
        print(f"{row['scale']:>4}x {acme['events'] / acme['jobs']:>10.2f} "
              f"{item['event']:>8.2f} {cell(item['event_x'], '5.2f'):>5} "
              f"{item['job']:>7.2f} {cell(item['job_x'], '5.2f'):>5} "
              f"{cell(item['loop_event'], '13.2f'):>13} {cell(item['loop_event_x'], '5.2f'):>5} "
              f"{cell(item['ref_event'], '12.2f'):>12} {cell(item['ref_event_x'], '5.2f'):>5}")


def pair_ratio(pairs: list[tuple[float, float]], read: float) -> tuple[float, list[float]]:
    """The median and each of the CPU ratios of (FIFO, other) run pairs, of the replays (the
    CPU of reading the file, the same in every run, taken off both sides)."""
    ratios = [(other - read) / (fifo - read) for fifo, other in pairs]
    return statistics.median(ratios), ratios


def print_options(rows: list[dict]) -> None:
    """CPU ratios of the other schedulers and of failure injection to failure-free FIFO (with
    ``--pairs N``, the median of N alternated pairs, each one listed)."""
    for row in rows:
        fifo, read = row["acmesim"], row["read"]["cpu_s"]
        for name, other in row.get("schedulers", {}).items():
            target = 3.0 if name == "eval_decoupled" else 2.0
            ratio, ratios = pair_ratio(other["pairs"], read)
            each = (f" (median of {len(ratios)} pairs: {', '.join(f'{r:.2f}' for r in ratios)})"
                    if len(ratios) > 1 else "")
            print(f"{row['scale']}x {name:<17} CPU {other['cpu_s']:7.1f} s (wall "
                  f"{other['wall_s']:6.1f} s) = {ratio:5.2f}x FIFO{each}, peak RSS "
                  f"{other['peak_rss_mb']:,.0f} MB "
                  f"({'ok' if ratio < target else 'OVER'} < {target:g}x)")
        if "failures" in row:
            faulty = row["failures"]
            ratio, _ = pair_ratio([(fifo["cpu_s"], faulty["cpu_s"])], read)
            print(f"{row['scale']}x failures (acme, async checkpoints, automatic recovery): CPU "
                  f"{faulty['cpu_s']:.1f} s (wall {faulty['wall_s']:.1f} s), "
                  f"{faulty['failures']:,} interruptions, {faulty['events']:,} events = "
                  f"{ratio:.2f}x failure-free ({'ok' if ratio < 1.3 else 'OVER'} < 1.3x)")


def parse() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 4, 10])
    parser.add_argument("--days", type=float, default=183.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help=f"where generated seeds are kept (default {DEFAULT_CACHE})")
    parser.add_argument("--schedulers", nargs="*", default=None,
                        help="also time these schedulers (none named: every registered one)")
    parser.add_argument("--pairs", type=int, default=1,
                        help="time each scheduler N times, each right after a FIFO run of its "
                             "own, and give the median ratio (default 1: against the first "
                             "FIFO run; single runs on a shared machine swing by ~10 %%)")
    parser.add_argument("--failures", action="store_true",
                        help="also time failure injection with async checkpoints")
    parser.add_argument("--checkpoint", default="young")
    parser.add_argument("--acmesim-only", action="store_true",
                        help="time acmesim alone: no reference loop and no start-time check "
                             "(at 44x x 183 days the reference's input alone exceeds 12 GB)")
    parser.add_argument("--child", choices=list(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--trace", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--scheduler", default="fifo", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pairs < 1:
        parser.error(f"--pairs must be at least 1, got {args.pairs}")
    return args


def main() -> None:
    """Measure every scale, print the tables, exit 1 if any start time differs."""
    args = parse()
    sys.path.insert(0, str(HERE))
    if args.child:
        args.scale = args.scales[0]
        print(json.dumps(CHILDREN[args.child](args)))
        return
    if args.schedulers == []:
        # the CLI's registry: with the (deprecated) eval_coupled/eval_decoupled spellings, so
        # eval=decoupled is timed too (under the base scheduler fifo)
        from acmesim.evaluation.scheduling import SCHEDULERS

        args.schedulers = [name for name in SCHEDULERS.names() if name != "fifo"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for scale in args.scales:
            rows.append({**measure_scale(scale, args, Path(tmp)), "days": args.days})
    print_table(rows)
    print_growth(rows)
    print_options(rows)
    failed = [row for row in rows if row["problems"]]
    for row in failed:
        print(f"\n{row['scale']}x: the reference loop and acmesim DISAGREE:\n"
              + "\n".join(row["problems"]), file=sys.stderr)
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
