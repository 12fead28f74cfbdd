"""Every shell command documented in README.md and docs/*.md runs as shown.

The commands of each document run in order, in one scratch directory, in-process (as
``acmesim.cli.main``). Files a command names but the documents do not make are written first:
``trace_seren.csv`` (an eight-job trace in the published schema) and ``faults.csv`` (one fault).
Replays of the bundled sample get the eight-job trace appended (each command's own overrides
are still composed, validated and run; the sample itself is replayed by
``test_the_once_failing_tiny_cluster_example_is_fixed``), and a few commands get a fast variant
(``FAST``: fewer days, trials or workers); the ones that cannot run here are listed in
``NOT_RUN`` with the reason,
and a test checks that both lists name only commands that really are documented, so a new
command is run unless someone says why not.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from cli_trace import write_tiny_trace

from acmesim.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TINY = "trace.path=trace_seren.csv"

NOT_RUN = {
    'pip install . && acmesim replay': "installs the package (acmesim replay runs below)",
    'pip install ".[test]" && python -m pytest': "installs and runs this test suite",
    'pip install -e ".[test]"': "installs the package",
    "python -m pytest": "this test suite",
    "ruff check .": "the linter, not an acmesim command",
    "lint-imports": "the layer contract, not an acmesim command (tests/test_layers.py runs it)",
    "mypy acmesim": "the type check, not an acmesim command (.ci/run runs it)",
    "python benchmarks/bench_replay.py --scales 1 2 4": "a benchmark of several minutes",
    "python -m pytest tests/policies/test_scheduler_contract.py -k smallest_first":
        "needs the example saved into the package (tests/docs/test_docs_extending.py runs it)",
    "python -m pytest tests/policies/test_plugin_contract.py -k lognormal":
        "needs the example saved into the package (tests/docs/test_docs_extending.py runs it)",
    "python -m pytest tests/policies/test_plugin_contract.py -k fixed_delay":
        "needs the example saved into the package (tests/docs/test_docs_extending.py runs it)",
}
NOT_RUN_PREFIXES = {
    "acmesim replay -m hydra/launcher=submitit_slurm": "needs a Slurm cluster",
    "RAY_AUTH_MODE=token acmesim replay -m hydra/launcher=ray": "needs a Ray cluster",
    "ray start": "starts a node of a Ray cluster",
}

FAST = {
    "trace.days=30": "trace.days=0.5", "trace.days=14": "trace.days=0.5",
    "--days 30": "--days 2", "hydra.launcher.n_jobs=8": "hydra.launcher.n_jobs=2",
    "hydra.sweeper.n_trials=8": "hydra.sweeper.n_trials=2",
    "hydra.sweeper.n_trials=6": "hydra.sweeper.n_trials=2",
    "seed=1,2,3": "seed=1",  # seeds change nothing without failures (the runs say so)
}
"""Documented text -> what the test runs instead (same command, less work)."""


def documented_commands(document: Path) -> list[str]:
    """The shell commands of a document's bash blocks (continuations joined, comments cut)."""
    commands = []
    for block in re.findall(r"```(?:bash|sh)\n(.*?)```", document.read_text("utf-8"), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            command = " ".join(re.sub(r"(^|\s)#.*$", "", line).split())
            if command:
                commands.append(command)
    return commands


def reason_not_run(command: str) -> str | None:
    if command in NOT_RUN:
        return NOT_RUN[command]
    if "hydra/launcher=ray" in command and importlib.util.find_spec("ray") is None:
        return "needs the ray extra"
    return next((why for prefix, why in NOT_RUN_PREFIXES.items()
                 if command.startswith(prefix)), None)


def fast_variant(command: str) -> list[str]:
    """The arguments the test runs for ``command``."""
    for documented, fast in FAST.items():
        command = command.replace(documented, fast)
    args = shlex.split(command)
    replay = args[:2] == ["acmesim", "replay"] and "--config-dir" not in args
    if replay and not any(a.startswith(("trace.path=", "trace=")) for a in args):
        args.append(TINY)  # instead of the bundled sample: 8 jobs
    if replay and "-m" in args:
        if not any(a.startswith("hydra.sweep.dir=") for a in args):
            args.append("hydra.sweep.dir=multirun/DATE/TIME")  # where collect/plot look
        if "hydra/sweeper=optuna" in args and not any("n_trials" in a for a in args):
            args.append("hydra.sweeper.n_trials=2")
    if args[:2] == ["acmesim", "replay"]:
        args.append("progress=false")
    return args


def prepare(directory: Path) -> None:
    write_tiny_trace(directory / "trace_seren.csv")
    (directory / "faults.csv").write_text("time,node,kind\n3600,n0001,ecc_error\n",
                                          encoding="utf-8")


EXTENDING = ROOT / "docs" / "extending.md"


def extending_example(command: str) -> str | None:
    """The python example of docs/extending.md registering a plug-in ``command`` selects."""
    for block in re.findall(r"```python\n(.*?)```", EXTENDING.read_text("utf-8"), re.S):
        names = re.findall(r'\.register\("([^"]+)"', block)
        if any(re.search(rf"=\s*{re.escape(name)}(\s|$)", command) for name in names):
            return block
    return None


def run(command: str, capsys) -> None:
    args = fast_variant(command)
    example = extending_example(command) if args[0] == "acmesim" else None
    if example is not None:
        # a plug-in of docs/extending.md, registered as if saved in the package
        script = example + f"\nfrom acmesim.cli import main\nraise SystemExit(main({args[1:]!r}))"
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, f"{command}\n{done.stdout[-1500:]}{done.stderr[-1500:]}"
        return
    assert args[0] == "acmesim", f"no way to run {command!r}: add it to NOT_RUN with a reason"
    code = main(args[1:])
    out = capsys.readouterr()
    assert code == 0, f"{command}\n{out.out[-1500:]}\n{out.err[-1500:]}"


@pytest.fixture
def fresh_workers(monkeypatch):
    """Stop joblib's reusable workers and a local Ray instance afterwards: they keep the cwd
    they were started in."""
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    yield
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)
    if "ray" in sys.modules:
        sys.modules["ray"].shutdown()


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_documented_command_runs_as_shown(document, tmp_path, monkeypatch, capsys,
                                                fresh_workers):
    commands = [c for c in documented_commands(document) if reason_not_run(c) is None]
    monkeypatch.chdir(tmp_path)
    prepare(tmp_path)
    for command in commands:
        run(command, capsys)


def test_the_exceptions_name_documented_commands():
    documented = {c for d in DOCUMENTS for c in documented_commands(d)}
    assert set(NOT_RUN) <= documented
    for prefix in NOT_RUN_PREFIXES:
        assert any(c.startswith(prefix) for c in documented), prefix
    for text in FAST:
        assert any(text in c for c in documented), text


def test_the_once_failing_tiny_cluster_example_is_fixed(tmp_path, monkeypatch, capsys):
    """docs/cli.md showed cluster=tiny on the sample: 87 jobs could never fit."""
    monkeypatch.chdir(tmp_path)
    line = next(c for c in documented_commands(ROOT / "docs" / "cli.md")
                if "placement=spread" in c and "hydra.run.dir=results/one" in c)
    assert main(["replay", *shlex.split(line)[2:], "progress=false"]) == 0  # the sample
    summary = (tmp_path / "results" / "one" / "summary.csv").read_text()
    assert "can never fit" not in summary
