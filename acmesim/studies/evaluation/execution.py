"""The execution model: run planned trials on GPUs, NICs and CPU threads of a set of nodes (SimPy).

Timeline of a trial (all GPU-holding phases count as GPU time held):

- Dispatch: trials wait in one FIFO queue (requests in submission order, each in its plan's
  order). Whenever GPUs free up, the head trial starts on the lowest-index node with enough free
  GPUs, taking the lowest free GPU indices; a head that does not fit blocks the queue.
- Loading (GPU held): *coupled*, the trial reads the checkpoint through its node's NIC, shared
  equally with every transfer on that NIC (``SharedLink``). *Decoupled*, the first trial of a
  model on a node starts that node's one prefetch (checkpoint -> host memory through the NIC);
  every trial on the node waits for it, then copies from host memory to its GPUs at
  ``host_to_gpu_gbytes_per_s`` per GPU (not shared). Host copies stay for later requests of the
  same model.
- Shards in the trial's order: preprocessing, then inference, of each.
- Metrics: a dataset is complete when its last shard's inference ends; the trial running that
  shard computes the dataset's metric. *Coupled*, it does so at once on its GPU (held, idle),
  before its next shard. *Decoupled*, the metric becomes a CPU job on the same node, submitted
  at once, which waits (FIFO) for ``metric_cpu_threads`` of the node's spare threads; the trial
  releases its GPU after its last shard's inference.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

import simpy

from acmesim.core.errors import ConfigError
from acmesim.evaluation.plan import EvalPlan, Shard, Trial
from acmesim.evaluation.spec import EvalCluster, ModelSpec
from acmesim.studies.evaluation.link import SharedLink
from acmesim.studies.evaluation.results import (
    DatasetRecord,
    EvalResult,
    PrefetchRecord,
    TrialRecord,
    summarize,
)


@dataclass
class _Node:
    """Mutable state of one node."""

    index: int
    free_gpus: list[int]
    nic: SharedLink
    cpu: simpy.Container
    host_copies: dict[str, simpy.Event] = field(default_factory=dict)


class EvalExecution:
    """Executes evaluation plans on an ``EvalCluster`` inside a SimPy environment."""

    def __init__(self, env: simpy.Environment, cluster: EvalCluster) -> None:
        self.env = env
        self.cluster = cluster
        spare = cluster.metric_cpu_threads_per_node
        self._nodes = [
            _Node(
                index=i,
                free_gpus=list(range(cluster.gpus_per_node)),
                nic=SharedLink(env, cluster.nic_bytes_per_s),
                cpu=simpy.Container(env, capacity=spare, init=spare),
            )
            for i in range(cluster.nodes)
        ]
        self._queue: deque[tuple[EvalPlan, Trial]] = deque()
        self._plans: dict[str, EvalPlan] = {}
        self._suite_order: dict[str, dict[str, int]] = {}
        self._trials: dict[str, list[TrialRecord]] = {}
        self._datasets: dict[str, dict[str, DatasetRecord]] = {}
        self._shards_left: dict[tuple[str, str], int] = {}
        self._prefetches: list[PrefetchRecord] = []

    def submit(self, plan: EvalPlan) -> None:
        """Queue ``plan``'s trials at its request's submit time (not before ``env.now``)."""
        request = plan.request
        rid = request.request_id
        if rid in self._datasets:
            raise ConfigError(f"request {rid!r} submitted twice")
        if request.model.gpus > self.cluster.gpus_per_node:
            raise ConfigError(
                f"request {rid!r}: model {request.model.name!r} needs {request.model.gpus} GPUs "
                f"per trial, but nodes have {self.cluster.gpus_per_node}"
            )
        self._plans[rid] = plan
        self._suite_order[rid] = {d.name: i for i, d in enumerate(request.datasets)}
        self._trials[rid] = []
        self._datasets[rid] = {}
        for trial in plan.trials:
            for shard in trial.shards:
                self._shards_left[(rid, shard.dataset)] = shard.count
                self._datasets[rid][shard.dataset] = DatasetRecord(rid, shard.dataset, shard.count)
        self.env.process(self._arrive(plan))

    def result(self) -> EvalResult:
        """Records and per-request summaries of every submitted plan (call after running)."""
        unfinished = [rid for rid, ds in self._datasets.items()
                      if any(math.isnan(d.metric_end) for d in ds.values())]
        if unfinished:
            raise RuntimeError(f"requests not finished: {unfinished}")
        trials = [t for rid in self._trials for t in self._trials[rid]]
        datasets = [d for rid in self._datasets for d in self._ordered_datasets(rid)]
        summaries = [
            summarize(p.request.request_id, p.scheduler, p.request.submit_time,
                      self._trials[p.request.request_id],
                      self._ordered_datasets(p.request.request_id))
            for p in self._plans.values()
        ]
        return EvalResult(trials, datasets, list(self._prefetches), summaries)

    def _ordered_datasets(self, rid: str) -> list[DatasetRecord]:
        return [self._datasets[rid][d.name] for d in self._plans[rid].request.datasets]

    def _arrive(self, plan: EvalPlan):
        delay = plan.request.submit_time - self.env.now
        if delay > 0:
            yield self.env.timeout(delay)
        self._queue.extend((plan, trial) for trial in plan.trials)
        self._dispatch()

    def _dispatch(self) -> None:
        """Start queued trials in order while the head trial fits on some node."""
        while self._queue:
            plan, trial = self._queue[0]
            node = next((n for n in self._nodes if len(n.free_gpus) >= trial.gpu_num), None)
            if node is None:
                return
            self._queue.popleft()
            gpus = node.free_gpus[: trial.gpu_num]
            del node.free_gpus[: trial.gpu_num]
            self.env.process(self._run_trial(plan, trial, node, gpus))

    def _run_trial(self, plan: EvalPlan, trial: Trial, node: _Node, gpus: list[int]):
        rid = plan.request.request_id
        record = TrialRecord(rid, trial.trial_id, trial.label, trial.gpu_num, node.index,
                             gpus[0], trial.inference_s, load_start=self.env.now)
        self._trials[rid].append(record)
        model = plan.request.model
        if plan.options.decouple_loading:
            yield self._host_copy(node, model)
            yield from self._wait(self.cluster.local_load_s(model))
        else:
            yield node.nic.transfer(model.size_bytes)
        record.load_end = self.env.now
        metrics = []
        for shard in trial.shards:
            yield from self._wait(shard.prep_s)
            yield from self._wait(shard.inference_s)
            record.inference_end = self.env.now
            if not self._complete_shard(rid, shard):
                continue
            if plan.options.decouple_metrics:
                metrics.append(self.env.process(self._metric_job(plan, shard.dataset, node)))
            else:
                yield from self._metric(plan, shard.dataset, node, mode="gpu")
                record.metric_end = self.env.now
        self._release(record, node, gpus)
        if metrics:
            yield simpy.AllOf(self.env, metrics)
            record.metric_end = self.env.now

    def _release(self, record: TrialRecord, node: _Node, gpus: list[int]) -> None:
        record.released = self.env.now
        node.free_gpus = sorted(node.free_gpus + gpus)
        self._dispatch()

    def _complete_shard(self, rid: str, shard: Shard) -> bool:
        """Count ``shard`` done; True when it was its dataset's last one."""
        key = (rid, shard.dataset)
        self._shards_left[key] -= 1
        if self._shards_left[key]:
            return False
        self._datasets[rid][shard.dataset].inference_end = self.env.now
        return True

    def _metric_job(self, plan: EvalPlan, name: str, node: _Node):
        threads = self.cluster.metric_cpu_threads
        yield node.cpu.get(threads)
        yield from self._metric(plan, name, node, mode="cpu")
        yield node.cpu.put(threads)

    def _metric(self, plan: EvalPlan, name: str, node: _Node, mode: str):
        record = self._datasets[plan.request.request_id][name]
        record.metric_mode, record.metric_node = mode, node.index
        record.metric_start = self.env.now
        yield from self._wait(plan.request.dataset(name).metric_s)
        record.metric_end = self.env.now

    def _host_copy(self, node: _Node, model: ModelSpec) -> simpy.Event:
        """The node's copy of ``model`` in host memory, prefetched on first use."""
        copy = node.host_copies.get(model.name)
        if copy is None:
            record = PrefetchRecord(model.name, node.index, self.env.now)
            self._prefetches.append(record)
            copy = node.nic.transfer(model.size_bytes)
            copy.callbacks.append(lambda _e: setattr(record, "end", self.env.now))
            node.host_copies[model.name] = copy
        return copy

    def _wait(self, seconds: float):
        """Hold for ``seconds``; zero-length phases create no event."""
        if seconds > 0:
            yield self.env.timeout(seconds)


def simulate(plans: Iterable[EvalPlan], cluster: EvalCluster) -> EvalResult:
    """Run ``plans`` on ``cluster`` from an empty state until every metric is done."""
    env = simpy.Environment()
    execution = EvalExecution(env, cluster)
    for plan in sorted(plans, key=lambda p: p.request.submit_time):
        execution.submit(plan)
    env.run()
    return execution.result()
