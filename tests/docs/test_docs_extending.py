"""The worked scheduler example in docs/extending.md runs as written and keeps the invariants."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "extending.md"

CHECK = textwrap.dedent("""
    import acmesim
    from acmesim.run import simulate
    from acmesim.synth import sample_trace_path

    jobs = acmesim.load_trace(sample_trace_path())
    jobs = jobs[jobs["gpu_num"] <= 256].head(3000)  # what fits the 32-node cluster
    result = simulate(jobs, cluster="small", scheduler=SmallestFirst({config}),
                      cpu_jobs="replay", audit=True)
    table = result.jobs
    assert len(table) == len(jobs), (len(table), len(jobs))
    assert table["job_id"].is_unique
    recorded = (jobs["run_time"] * jobs["gpu_num"]).sum()
    replayed = (table["run_time"] * table["gpu_num"]).sum()
    assert abs(recorded - replayed) < 1e-6 * recorded, (recorded, replayed)
    print("ok", len(table))
""")


def example_code() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks, "docs/extending.md has no python example"
    return blocks[0]


def run_example(config: str) -> subprocess.CompletedProcess:
    script = example_code() + CHECK.format(config=config)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)


def test_the_documented_scheduler_replays_every_job_with_gpu_time_conserved():
    done = run_example("SmallestFirst.Config()")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ok 3000")


def test_the_documented_option_caps_starts_per_pass():
    done = run_example("SmallestFirst.Config(max_starts=2)")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ok 3000")
