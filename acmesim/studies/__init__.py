"""Stand-alone models behind the experiments, outside the cluster replay (``acmesim.run``).

- ``reliability``: one job under checkpoints and failures (SimPy and a vectorized twin);
- ``evaluation``: one evaluation request executed on nodes, a shared NIC and CPU threads.

The cluster simulator is ``acmesim.sim`` driven by ``acmesim.run``; these models reuse its
contracts (checkpoint plans, failure rates, evaluation plans) but not its event loop.
"""
