"""acmesim in a notebook: replay, look at the tables, draw the figures, compare two schedulers.

Each ``# %%`` block is one notebook cell (Jupyter, VS Code and JupyterLab's jupytext open this
file as a notebook); as a script it runs top to bottom and writes its figures to
``notebook_figures/`` (or the directory given as the first argument). The test suite runs it.
"""

# %% Replay the bundled sample trace with a progress bar (a widget in Jupyter)
import sys
from pathlib import Path

import acmesim
from acmesim.analysis.plots import plot_bars, plot_type_cdfs
from acmesim.synth import sample_trace_path

out = Path(sys.argv[1] if len(sys.argv) > 1 else "notebook_figures")
jobs = acmesim.load_trace(sample_trace_path())
result = acmesim.simulate(jobs, cluster="seren", scheduler="fifo", progress=True)
result  # noqa: B018 - in a notebook: headline figures, the per-type table, the first jobs

# %% The result's tables are pandas DataFrames
print(result.by_type.round(1))
print(result.summary_frame.loc[["simulated_jobs", "gpu_utilization", "queue_delay_mean"]])

# %% Figures are returned (shown inline in a notebook) and saved when given a path
figure = plot_type_cdfs(result.jobs, out / "type_cdfs.png")
figure  # noqa: B018 - a notebook shows the figure here

# %% Compare two schedulers on the first day, on 170 of Seren's 286 nodes (queueing appears)
import pandas as pd  # noqa: E402

from acmesim.cluster import CLUSTERS  # noqa: E402

first_day = jobs[jobs["submit_time"] < jobs["submit_time"].min() + pd.Timedelta(days=1)]
smaller = CLUSTERS.create("seren", {"nodes": 170}).spec
runs = {name: acmesim.simulate(first_day, cluster=smaller, scheduler=name)
        for name in ("fifo", "sjf")}
means = pd.Series({name: run.summary["queue_delay_mean"] for name, run in runs.items()})
plot_bars(means, means * 0, "queue_delay_mean", "s", out / "queue_delay_mean.png")
print(means.round(2).to_string())
