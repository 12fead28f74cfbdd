"""Power and energy of a replay, from its utilization steps and its jobs' running intervals.

- ``job_util``: each GPU job's utilization (the trace's ``gpu_util``, else a derived draw);
- ``accounting``: the extension that sets each job's power load and splits its running
  intervals into waiting and computing time (per utilization interval and per job);
- ``tables``: power per interval, energy in the summary and per job;
- ``extension``: the run's power extension (the accounting plus its tables and summary).

The per-GPU power distribution of a replay against the published one is checked by
``calibration/energy.py`` (outside the package).
"""
