"""A plan: the trials an evaluation request is cut into, and how the trials are to be executed."""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass
from typing import NamedTuple

from acmesim.core.errors import ConfigError
from acmesim.evaluation.spec import EvalRequest


@dataclass(frozen=True)
class ExecutionOptions:
    """Which execution techniques a plan uses; each can be switched on alone (for ablations).

    ``decouple_loading``: one prefetch per node copies the checkpoint from remote storage into
    host memory; trials load it from there instead of each reading it through the NIC.
    ``decouple_metrics``: a trial releases its GPU after inference; each dataset's metric runs as a
    separate CPU job.
    """

    decouple_loading: bool = False
    decouple_metrics: bool = False


class Shard(NamedTuple):
    """Part ``index`` of ``count`` equal parts of one dataset's preprocessing and inference.

    A named tuple, as ``Trial``: a cluster replay plans about 170,000 of each on 60 days of
    Seren, and a tuple is built in under half the time of a frozen dataclass.
    """

    dataset: str
    # ``index`` and ``count`` are fields here, not the tuple methods of those names
    index: int  # type: ignore[assignment]
    count: int  # type: ignore[assignment]
    prep_s: float
    inference_s: float

    @property
    def label(self) -> str:
        """``name`` for a whole dataset, ``name[i/k]`` for part i of k (1-based)."""
        return self.dataset if self.count == 1 else f"{self.dataset}[{self.index + 1}/{self.count}]"

    @property
    def gpu_work_s(self) -> float:
        """Prep + inference seconds of this shard."""
        return self.prep_s + self.inference_s


class Trial(NamedTuple):
    """One GPU job: load the model once, then preprocess and infer its shards in order."""

    trial_id: str
    shards: tuple[Shard, ...]
    gpu_num: int

    @property
    def prep_s(self) -> float:
        """Total preprocessing seconds."""
        return sum(s.prep_s for s in self.shards)

    @property
    def inference_s(self) -> float:
        """Total GPU inference seconds."""
        return sum(s.inference_s for s in self.shards)

    @property
    def gpu_work_s(self) -> float:
        """Prep + inference seconds (model loading excluded: it depends on the execution)."""
        return self.prep_s + self.inference_s

    @property
    def label(self) -> str:
        """The trial's shards, ``;``-separated."""
        return ";".join(s.label for s in self.shards)


@dataclass(frozen=True)
class EvalPlan:
    """A request cut into trials (dispatched in this order), plus the execution techniques."""

    request: EvalRequest
    trials: tuple[Trial, ...]
    options: ExecutionOptions
    scheduler: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "trials", tuple(self.trials))
        self._check_coverage()

    def _check_coverage(self) -> None:
        """Every dataset must be cut into shards 0..k-1 exactly once, and nothing else."""
        shards = list(itertools.chain.from_iterable(trial.shards for trial in self.trials))
        counts = {shard.dataset: shard.count for shard in shards}  # the last shard's count
        expected = {d.name for d in self.request.datasets}
        rid = self.request.request_id
        if set(counts) != expected:
            raise ConfigError(f"plan for {rid!r}: trials cover {sorted(counts)}, "
                              f"expected datasets {sorted(expected)}")
        if len(shards) != sum(counts.values()) or not _each_index_once(shards, counts):
            raise ConfigError(f"plan for {rid!r}: shards must be 0..k-1 of each dataset, once each")


def _each_index_once(shards: list[Shard], counts: dict[str, int]) -> bool:
    """Given as many shards as the counts add up to: whether no (dataset, index) comes twice
    and each index is in ``range(count)`` of its dataset. Then dataset d has k_d distinct
    indices out of range(k_d), i.e. exactly 0..k_d-1 (integer indices and counts compared
    with ``<=``/``<`` by ``map``, anything else with ``in range``)."""
    names = [shard.dataset for shard in shards]
    indices = [shard.index for shard in shards]
    if len(set(zip(names, indices, strict=True))) != len(shards):
        return False
    if {type(i) for i in indices} | {type(k) for k in counts.values()} <= {int}:
        return min(indices, default=0) >= 0 and all(map(operator.lt, indices,
                                                        map(counts.__getitem__, names)))
    return all(index in range(counts[name]) for name, index in zip(names, indices, strict=True))
