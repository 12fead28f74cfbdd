"""A run directory's life cycle with the real engine: interrupted runs are never taken as complete.

Each interruption is injected in-process at a chosen point of a real replay (the engine writing
one of its tables, or the simulation finishing), so the skip check of the next invocation and
``acmesim collect`` are tested against exactly what an interrupted run leaves behind.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pandas as pd
import pytest

import acmesim.results.writers as writers
import acmesim.run.lifecycle as lifecycle
from acmesim.cli import main
from acmesim.cli.commands.collect import collect
from acmesim.core.atomic import atomic_open
from acmesim.results.rundirs import COMPLETE, read_run

RESULTS = ("config.yaml", "jobs.csv", "failures.csv", "utilization.csv")


class Killed(BaseException):
    """Stands for the process dying: nothing in acmesim catches it (as with SIGKILL)."""


def replay(trace: Path, *args: str) -> int:
    flags = [arg for arg in args if arg.startswith("-")]  # Hydra takes its flags first
    overrides = [arg for arg in args if not arg.startswith("-")]
    return main(["replay", *flags, "progress=false", f"trace.path={trace.name}", "cluster=tiny",
                 *overrides])


def die_while_writing(monkeypatch, file_name: str, error: BaseException) -> None:
    """Make the result writer raise ``error`` half-way through writing ``file_name``."""
    real = writers.atomic_write_csv

    def atomic_write_csv(path, frame, **kwargs):
        if Path(path).name == file_name:
            with atomic_open(path, "w") as handle:
                handle.write(frame.to_csv(index=False)[:40])
                raise error
        return real(path, frame, **kwargs)

    monkeypatch.setattr(writers, "atomic_write_csv", atomic_write_csv)


def interrupted(call) -> int | str:
    """The exit code of ``call()``; ``"died"`` when the process would have died, ``"escaped"``
    when a KeyboardInterrupt left the command (a traceback and no exit code of its own)."""
    try:
        return call()
    except Killed:
        return "died"
    except KeyboardInterrupt:
        return "escaped"


def comparable(run: Path) -> dict[str, bytes]:
    """Every result file's bytes (summary.csv without its wall-clock fields)."""
    files = {name: (run / name).read_bytes() for name in RESULTS}
    summary = pd.read_csv(run / "summary.csv", keep_default_na=False)
    files["summary.csv"] = summary.drop(columns=["wall_time", "events_per_second"]).to_csv()
    return files


@pytest.mark.parametrize("dies_at", ["jobs.csv", "utilization.csv", "summary.csv"])
def test_a_run_killed_in_a_finished_directory_is_not_skipped_later(trace, monkeypatch, capsys,
                                                                   dies_at):
    assert replay(trace, "hydra.run.dir=D") == 0  # a finished fifo run
    with monkeypatch.context() as patch:
        die_while_writing(patch, dies_at, Killed())
        assert interrupted(lambda: replay(trace, "scheduler=sjf", "hydra.run.dir=D")) == "died"
    assert read_run(Path("D")).status != COMPLETE
    assert collect(Path("D")).loc[0, "status"] != COMPLETE
    capsys.readouterr()
    assert replay(trace, "scheduler=sjf", "hydra.run.dir=D") == 0
    assert "skipped" not in capsys.readouterr().out
    assert replay(trace, "scheduler=sjf", "hydra.run.dir=fresh") == 0
    assert comparable(Path("D")) == comparable(Path("fresh"))


def test_an_interrupted_forced_rerun_is_not_skipped_later(trace, monkeypatch, capsys):
    assert replay(trace, "hydra.run.dir=D") == 0
    with monkeypatch.context() as patch:
        die_while_writing(patch, "utilization.csv", Killed())
        assert interrupted(lambda: replay(trace, "force=true", "hydra.run.dir=D")) == "died"
    capsys.readouterr()
    assert replay(trace, "hydra.run.dir=D") == 0
    assert "skipped" not in capsys.readouterr().out
    assert read_run(Path("D")).status == COMPLETE


def test_a_reused_sweep_directory_reruns_the_interrupted_run(trace, monkeypatch, capsys):
    sweep = ("-m", "hydra.sweep.dir=S", "seed=1,2")
    assert replay(trace, *sweep) == 0
    with monkeypatch.context() as patch:
        die_while_writing(patch, "jobs.csv", Killed())
        assert interrupted(lambda: replay(trace, "scheduler=sjf", *sweep)) == "died"
    statuses = collect(Path("S"))["status"].tolist()
    assert statuses[0] != COMPLETE  # job 0 died, job 1 never started (still the fifo result)
    capsys.readouterr()
    assert replay(trace, "scheduler=sjf", *sweep) == 0
    assert "skipped" not in capsys.readouterr().out
    assert collect(Path("S"))["scheduler"].tolist() == ["sjf", "sjf"]


def test_a_complete_run_is_still_skipped(trace, capsys):
    assert replay(trace, "seed=3", "hydra.run.dir=D") == 0
    before = {name: (Path("D") / name).stat().st_mtime_ns for name in RESULTS}
    assert replay(trace, "seed=3", "hydra.run.dir=D") == 0
    assert "already complete for this config, skipped" in capsys.readouterr().out
    assert before == {name: (Path("D") / name).stat().st_mtime_ns for name in RESULTS}


def test_a_result_file_changed_after_the_run_is_not_taken_as_complete(trace, capsys):
    assert replay(trace, "hydra.run.dir=D") == 0
    jobs = Path("D", "jobs.csv")
    jobs.write_text(jobs.read_text().replace("COMPLETED", "CANCELLED", 1))
    assert read_run(Path("D")).status != COMPLETE
    capsys.readouterr()
    assert replay(trace, "hydra.run.dir=D") == 0
    assert "skipped" not in capsys.readouterr().out


def test_stale_temporary_files_of_a_killed_write_are_removed_by_the_next_run(trace):
    run = Path("D")
    run.mkdir()
    leftovers = [run / ".jobs.csv.k3x9q2ab.tmp", run / ".summary.csv.0a1b2c3d.tmp"]
    for path in leftovers:
        path.write_text("job_id,half a row")
    assert replay(trace, "hydra.run.dir=D") == 0
    assert not [p for p in leftovers if p.exists()]
    assert not list(run.glob(".*.tmp"))


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_run_with_one_line_and_records_it(trace, monkeypatch, capsys,
                                                             signum, code):
    def unhandled(number, frame):  # what would happen without acmesim's own handler
        raise Killed(f"signal {number} reached the default handler")

    previous = signal.signal(signum, unhandled)
    real = lifecycle.run

    def simulate_then_signal(*args, **kwargs):
        result = real(*args, **kwargs)
        os.kill(os.getpid(), signum)
        return result

    try:
        assert replay(trace, "hydra.run.dir=D") == 0
        monkeypatch.setattr(lifecycle, "run", simulate_then_signal)
        capsys.readouterr()
        assert interrupted(lambda: replay(trace, "force=true", "hydra.run.dir=D")) == code
        assert signal.getsignal(signum) is unhandled  # the handler is restored afterwards
    finally:
        signal.signal(signum, previous)
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert signal.Signals(signum).name in err and "interrupted" in err
    record = read_run(Path("D"))
    assert record.status != COMPLETE
    assert "interrupted" in record.error and signal.Signals(signum).name in record.error
    assert not Path("D", "jobs.csv").exists()  # no table of the old run next to the new config


def interrupt_the_simulation(monkeypatch) -> None:
    """Make the next simulation stop as Ctrl-C would stop it."""
    def simulate(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(lifecycle, "run", simulate)


def test_rerun_skips_a_complete_run_unless_forced(trace, monkeypatch, capsys):
    # (was tested against a stand-in engine that never wrote wall_time nor got interrupted)
    assert replay(trace, "seed=3", "hydra.run.dir=out") == 0
    assert replay(trace, "seed=3", "hydra.run.dir=out") == 0
    assert capsys.readouterr().out.count("skipped") == 1
    assert replay(trace, "seed=4", "hydra.run.dir=out") == 0  # other config: not skipped
    assert "skipped" not in capsys.readouterr().out
    with monkeypatch.context() as patch:
        interrupt_the_simulation(patch)
        assert interrupted(lambda: replay(trace, "seed=4", "force=true",
                                          "hydra.run.dir=out")) == 130
    assert replay(trace, "seed=4", "hydra.run.dir=out") == 0  # the interrupted one is redone
    assert "skipped" not in capsys.readouterr().out
    assert replay(trace, "seed=4", "hydra.run.dir=out") == 0
    assert "skipped" in capsys.readouterr().out


def test_rerunning_a_sweep_skips_only_its_complete_runs(trace, monkeypatch, capsys):
    sweep = ("-m", "hydra.sweep.dir=S", "seed=1,2")
    assert replay(trace, *sweep) == 0
    assert replay(trace, *sweep) == 0
    assert capsys.readouterr().out.count("skipped") == 2
    real = lifecycle.run

    def ctrl_c_on_seed_2(config, **kwargs):
        if config.seed == 2:
            raise KeyboardInterrupt
        return real(config, **kwargs)

    with monkeypatch.context() as patch:  # Ctrl-C during the forced rerun of the second run
        patch.setattr(lifecycle, "run", ctrl_c_on_seed_2)
        assert interrupted(lambda: replay(trace, *sweep, "force=true")) == 130
    assert collect(Path("S"))["status"].tolist() == [COMPLETE, "failed"]
    capsys.readouterr()
    assert replay(trace, *sweep) == 0
    out = capsys.readouterr().out
    assert out.count("skipped") == 1 and "S/0: already complete" in out
    assert collect(Path("S"))["status"].tolist() == [COMPLETE, COMPLETE]


def test_result_files_carry_no_wall_clock(trace):
    # (was tested against a stand-in engine that never wrote wall_time)
    assert replay(trace, "seed=5", "hydra.run.dir=a") == 0
    assert replay(trace, "seed=5", "hydra.run.dir=b") == 0
    a, b = comparable(Path("a")), comparable(Path("b"))
    assert a == b
    summaries = [pd.read_csv(Path(d, "summary.csv")) for d in "ab"]
    differing = {column for column in summaries[0]
                 if summaries[0].loc[0, column] != summaries[1].loc[0, column]
                 and not pd.isna(summaries[0].loc[0, column])}
    assert differing <= {"wall_time", "events_per_second"}  # the documented timing fields
    assert summaries[0].loc[0, "wall_time"] > 0


@pytest.mark.parametrize(("value", "expected"), [
    ("force=maybe", "force must be true or false, got 'maybe'"),
    ("seed=-1", "seed must be a non-negative integer, got -1"),
    ("utilization_interval=0", "utilization_interval must be > 0"),
    ("cluster.nodes=0", "cluster 'tiny': nodes must be an integer >= 1, got 0"),
])
def test_a_bad_value_stops_before_a_run_directory_is_made(trace, capsys, value, expected):
    assert replay(trace, value, "hydra.run.dir=new") == 1
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not Path("new").exists()


@pytest.mark.parametrize("args", [["trace=synthetic", "trace.days=0"],
                                  ["-m", "trace=synthetic", "trace.days=1,0"]])
def test_a_bad_trace_option_stops_before_a_run_or_sweep_directory(tmp_path, monkeypatch,
                                                                 capsys, args):
    monkeypatch.chdir(tmp_path)
    assert main(["replay", *args, "hydra.run.dir=new", "hydra.sweep.dir=new"]) == 1
    err = capsys.readouterr().err
    assert "trace 'synthetic': days must be in (0, 3660], got 0" in err
    assert len(err.strip().splitlines()) == 1
    assert not Path("new").exists()


def test_force_maybe_leaves_a_complete_run_alone(trace, capsys):
    assert replay(trace, "hydra.run.dir=D") == 0
    before = {name: (Path("D") / name).read_bytes() for name in RESULTS}
    assert replay(trace, "force=maybe", "hydra.run.dir=D") == 1  # was taken as force=true
    assert "force must be true or false" in capsys.readouterr().err
    assert before == {name: (Path("D") / name).read_bytes() for name in RESULTS}
    assert read_run(Path("D")).status == COMPLETE


@pytest.mark.parametrize("key", ["hydra.run.dir", "hydra.sweep.dir"])
def test_an_output_directory_that_is_a_file_is_a_one_line_error(trace, capsys, key):
    Path("taken").write_text("a file\n")
    sweep = ["-m"] if key == "hydra.sweep.dir" else []
    for target in ("taken", "taken/run"):
        assert replay(trace, *sweep, f"{key}={target}") == 1
        err = capsys.readouterr().err
        assert f"{key}={target}: taken is a file, not a directory" in err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert Path("taken").read_text() == "a file\n"


def test_synth_into_an_existing_directory_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("traces").mkdir()
    assert main(["synth", "--profile", "seren", "--days", "1", "--out", "traces"]) == 1
    err = capsys.readouterr().err
    assert "cannot write traces: it is a directory" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert list(Path("traces").iterdir()) == []
