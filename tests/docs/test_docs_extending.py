"""The worked examples of docs/extending.md (a scheduler, a failure model, a recovery policy) run
as written, do what they say and keep the invariants."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
from cli_trace import ROWS, write_tiny_trace

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


def example_code(name: str = "smallest_first") -> str:
    """The python block of docs/extending.md that registers plug-in ``name``."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    found = [block for block in blocks if f'.register("{name}"' in block]
    assert len(found) == 1, f"docs/extending.md has no single example registering {name!r}"
    return found[0]


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


# ---------------------------------------------------------------- failure model and recovery
def run_script(name: str, check: str) -> subprocess.CompletedProcess:
    script = example_code(name) + textwrap.dedent(check)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)


def replay(tmp_path: Path, name: str, *overrides: str) -> Path:
    """``acmesim replay`` of the tiny trace with the example registered, as if saved."""
    trace = write_tiny_trace(tmp_path / "trace_seren.csv")
    out = tmp_path / "run"
    args = ["replay", f"hydra.run.dir={out}", f"trace.path={trace}", "progress=false",
            *overrides]
    done = run_script(name, f"""
        from acmesim.cli import main
        raise SystemExit(main({args!r}))
    """)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return out


def test_the_documented_failure_model_draws_lognormal_times_of_the_stated_mean():
    done = run_script("lognormal", """
        import numpy as np
        from acmesim.policies.failure import FAILURES

        model = FAILURES.create("lognormal", {"node_mtbf_hours": 10.0, "sigma": 0.5})
        ttf = model.time_to_failure(np.random.default_rng(7), 400_000, 8)
        mean_h = ttf.mean() / 3600.0
        assert abs(mean_h - 10.0) < 0.05, mean_h               # E = exp(mu + sigma^2 / 2)
        assert abs(np.log(ttf).std() - 0.5) < 0.005, np.log(ttf).std()
        assert model.job_mtbf(16, 2) == 5 * 3600.0
        print("ok")
    """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"


def test_the_documented_failure_model_interrupts_a_replay(tmp_path):
    out = replay(tmp_path, "lognormal", "failure=lognormal", "failure.node_mtbf_hours=2",
                 "checkpoint=young")
    summary = pd.read_csv(out / "summary.csv").iloc[0]
    faults = pd.read_csv(out / "failures.csv")
    jobs = pd.read_csv(out / "jobs.csv")
    assert summary["failure"] == "lognormal"
    assert summary["failure_events"] == len(faults) > 0
    assert (faults["time"] < summary["simulated_span"]).all()
    assert len(jobs) == len(ROWS) and jobs["job_id"].is_unique
    assert jobs["failures"].sum() == faults["jobs_hit"].sum() > 0


def test_the_documented_recovery_policy_plans_a_fixed_delay_and_the_usual_cordon():
    done = run_script("fixed_delay", """
        import numpy as np
        from acmesim.policies.failure.events import FailureEvent
        from acmesim.policies.recovery import RECOVERIES

        policy = RECOVERIES.create("fixed_delay", {"delay_min": 20, "restart_min": 2})
        rng = np.random.default_rng(0)
        node = FailureEvent(100.0, "ecc_error", "node", "n0003", 10.0, 3600.0)
        switch = FailureEvent(100.0, "switch_failure", "switch", "leaf001", 10.0, 3600.0)
        transient = FailureEvent(100.0, "nccl_timeout", "node", "n0003", 10.0, 0.0)
        for fault, cordon in ((node, (("n0003",), None)), (switch, ((), "leaf001")),
                              (transient, ((), None))):
            plan = policy.plan(fault, None, 100.0, rng)
            assert (plan.wait, plan.restart_overhead) == (1200.0, 120.0), plan
            assert plan.release_nodes and plan.needs_new_nodes, plan
            assert (plan.cordon_nodes, plan.cordon_switch) == cordon == policy.cordon(fault)
        assert policy.reserved_nodes(32) == 0
        print("ok")
    """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"


def test_the_documented_recovery_policy_holds_every_interrupted_job_for_its_delay(tmp_path):
    out = replay(tmp_path, "fixed_delay", "failure=exponential", "failure.node_mtbf_hours=2",
                 "recovery=fixed_delay", "recovery.delay_min=20")
    summary = pd.read_csv(out / "summary.csv").iloc[0]
    jobs = pd.read_csv(out / "jobs.csv")
    assert summary["recovery"] == "fixed_delay"
    hit = jobs[jobs["failures"] > 0]
    assert len(hit) > 0
    # each interruption waits the 20 minutes, then the job is resubmitted; on the nearly idle
    # cluster it starts again in the same pass, so the wait is exactly 20 minutes per failure
    assert (hit["recovery_wait"] - hit["failures"] * 1200.0).abs().max() < 1e-6, hit
