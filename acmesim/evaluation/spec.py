"""What is evaluated and where: datasets and their phase times, model, request, nodes."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from acmesim.core.errors import ConfigError
from acmesim.evaluation import calibration as cal


def _require(condition: bool, message: str) -> None:
    """Raise ConfigError(message) unless ``condition`` holds."""
    if not condition:
        raise ConfigError(message)


def _non_negative(owner: str, **values: float) -> None:
    """Check that every value is a finite number >= 0, naming ``owner`` and the field."""
    for key, value in values.items():
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ConfigError(f"{owner}: {key} must be a finite number >= 0, got {value!r}")


def _is_non_negative(value: float) -> bool:
    """Whether ``value`` is a finite number >= 0 (what ``_non_negative`` checks)."""
    return isinstance(value, (int, float)) and math.isfinite(value) and value >= 0


def _positive_int(owner: str, **values: int) -> None:
    """Check that every value is an int >= 1, naming ``owner`` and the field."""
    for key, value in values.items():
        if not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            raise ConfigError(f"{owner}: {key} must be an integer >= 1, got {value!r}")


@dataclass(frozen=True)
class Dataset:
    """One benchmark dataset with its known per-phase times (the planner's priors).

    ``prep_s`` (tokenization) and ``inference_s`` are GPU-holding phases and scale with the share
    of the dataset a trial runs; ``metric_s`` is computed once over all predictions of the dataset.
    """

    name: str
    prep_s: float
    inference_s: float
    metric_s: float
    metric_kind: str = "rule"

    def __post_init__(self) -> None:
        _require(bool(self.name), "dataset: name must be a non-empty string")
        if not (_is_non_negative(self.prep_s) and _is_non_negative(self.inference_s)
                and _is_non_negative(self.metric_s)):  # datasets are many: the message only then
            _non_negative(f"dataset {self.name!r}", prep_s=self.prep_s,
                          inference_s=self.inference_s, metric_s=self.metric_s)

    @property
    def gpu_work_s(self) -> float:
        """Seconds the dataset keeps a GPU busy apart from model loading (prep + inference)."""
        return self.prep_s + self.inference_s


@dataclass(frozen=True)
class ModelSpec:
    """The checkpoint under evaluation: its size decides loading time, ``gpus`` its GPU demand."""

    name: str
    params: float = cal.MODEL_PARAMS
    bytes_per_param: float = cal.BYTES_PER_PARAM
    gpus: int = 1

    def __post_init__(self) -> None:
        _require(bool(self.name), "model: name must be a non-empty string")
        _non_negative(f"model {self.name!r}", params=self.params,
                      bytes_per_param=self.bytes_per_param)
        _positive_int(f"model {self.name!r}", gpus=self.gpus)

    @property
    def size_bytes(self) -> float:
        """Checkpoint size in bytes (parameters x bytes per parameter)."""
        return self.params * self.bytes_per_param


@dataclass(frozen=True)
class EvalRequest:
    """One evaluation request: a model checkpoint x a suite of datasets, submitted at a time."""

    request_id: str
    model: ModelSpec
    datasets: tuple[Dataset, ...]
    submit_time: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "datasets", tuple(self.datasets))
        _require(bool(self.request_id), "request: request_id must be a non-empty string")
        _require(len(self.datasets) > 0, f"request {self.request_id!r}: no datasets")
        _non_negative(f"request {self.request_id!r}", submit_time=self.submit_time)
        by_name = {d.name: d for d in self.datasets}
        if len(by_name) != len(self.datasets):
            names = [d.name for d in self.datasets]
            dupes = sorted({n for n in names if names.count(n) > 1})
            _require(not dupes, f"request {self.request_id!r}: duplicate dataset names {dupes}")
        object.__setattr__(self, "_by_name", by_name)  # not a field: no effect on ==, repr

    def dataset(self, name: str) -> Dataset:
        """The dataset called ``name``."""
        by_name: dict[str, Dataset] = self.__dict__["_by_name"]
        return by_name[name]


@dataclass(frozen=True)
class EvalCluster:
    """The nodes evaluation trials run on (defaults: Seren nodes, acme_facts.md §1)."""

    nodes: int
    gpus_per_node: int = cal.GPUS_PER_NODE
    cpu_threads_per_node: int = cal.CPU_THREADS_PER_NODE
    nic_gbps: float = cal.SEREN_NIC_GBPS
    host_to_gpu_gbytes_per_s: float = cal.HOST_TO_GPU_GBYTES_PER_S
    trial_cpu_threads: int = cal.TRIAL_CPU_THREADS
    metric_cpu_threads: int = cal.METRIC_CPU_THREADS
    metric_cpu_threads_per_node: int = field(init=False)

    def __post_init__(self) -> None:
        _positive_int("cluster", nodes=self.nodes, gpus_per_node=self.gpus_per_node,
                      cpu_threads_per_node=self.cpu_threads_per_node,
                      metric_cpu_threads=self.metric_cpu_threads)
        _non_negative("cluster", trial_cpu_threads=self.trial_cpu_threads)
        for key in ("nic_gbps", "host_to_gpu_gbytes_per_s"):
            value = getattr(self, key)
            ok = isinstance(value, int | float) and math.isfinite(value) and value > 0
            _require(ok, f"cluster: {key} must be a finite number > 0, got {value!r}")
        spare = self.cpu_threads_per_node - self.gpus_per_node * self.trial_cpu_threads
        _require(
            spare >= self.metric_cpu_threads,
            f"cluster: {self.cpu_threads_per_node} CPU threads per node minus "
            f"{self.gpus_per_node} x {self.trial_cpu_threads} kept by trials leaves {spare}, "
            f"fewer than one metric job's {self.metric_cpu_threads}",
        )
        object.__setattr__(self, "metric_cpu_threads_per_node", spare)

    @property
    def gpus(self) -> int:
        """Total GPUs of the cluster."""
        return self.nodes * self.gpus_per_node

    @property
    def nic_bytes_per_s(self) -> float:
        """Per-node NIC bandwidth in bytes per second."""
        return self.nic_gbps * cal.BYTES_PER_GBIT

    def local_load_s(self, model: ModelSpec) -> float:
        """Seconds to copy ``model`` from host memory to its GPUs (each GPU loads its share)."""
        return model.size_bytes / (model.gpus * self.host_to_gpu_gbytes_per_s * 1e9)
