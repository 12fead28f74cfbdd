"""Per-job task attributes of generated jobs, kept aligned with their ``JobArrays``.

Which workload class a job belongs to (``llm`` for the Acme profiles' jobs, ``search``, ``rl``,
``supervised``), which search / study / burst it is part of, its stage inside it (search rung,
RL seed), its variant (search trial or final training, RL algorithm), the job it continues
(``parent``: a promoted search trial, a pretraining restart) and its GPU utilization. They
become extra columns of the normalized table (``EXTRA_COLUMNS``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

EXTRA_COLUMNS: dict[str, str] = {
    "workload": "workload class: llm (Acme profiles), search, rl or supervised",
    "task_group": "the search, RL study or supervised burst the job belongs to ('' if none)",
    "task_stage": "search: rung of the trial (the final training is one past the last rung); "
                  "rl: seed index; otherwise 0",
    "task_variant": "search: trial or final; rl: the algorithm variant; otherwise ''",
    "parent_id": "job id of the job this one continues (promoted trial, restart), or ''",
    "gpu_util": "mean fraction of the job's GPU time its GPUs were busy (NaN for CPU jobs)",
}
"""Extra columns a task-DL or mixed trace adds to the normalized job table, in order."""

CLASS_TYPES: dict[str, str] = {"search": "Search", "rl": "RL", "supervised": "Supervised"}
"""Workload class -> the ``type`` its jobs carry in the job table."""


@dataclasses.dataclass
class TaskMeta:
    """Task attributes aligned with a ``JobArrays`` (same length and order)."""

    workload: np.ndarray
    group: np.ndarray
    stage: np.ndarray
    variant: np.ndarray
    parent: np.ndarray
    gpu_util: np.ndarray
    job_type: np.ndarray
    """The ``type`` column of each job (``CLASS_TYPES`` for task classes, Acme types for llm)."""

    @classmethod
    def plain(cls, workload: str, n: int, successor: np.ndarray | None = None,
              group: np.ndarray | None = None,
              job_type: np.ndarray | None = None) -> TaskMeta:
        """Attributes of ``n`` jobs of one class without stages or variants."""
        return cls(
            workload=np.full(n, workload, dtype=object),
            job_type=(np.full(n, CLASS_TYPES.get(workload, "Other"), dtype=object)
                      if job_type is None else np.asarray(job_type, dtype=object)),
            group=np.full(n, -1, dtype=np.int64) if group is None else group.astype(np.int64),
            stage=np.zeros(n, dtype=np.int64),
            variant=np.full(n, "", dtype=object),
            parent=(np.full(n, -1, dtype=np.int64) if successor is None
                    else parents_from_successors(successor)),
            gpu_util=np.full(n, np.nan),
        )

    def __len__(self) -> int:
        return len(self.workload)

    @classmethod
    def concat(cls, parts: list[TaskMeta]) -> TaskMeta:
        """Stack several parts; parent indices and group numbers are shifted to stay distinct."""
        offset, group_offset = 0, 0
        fields: dict[str, list[np.ndarray]] = {f.name: [] for f in dataclasses.fields(cls)}
        for part in parts:
            for name in fields:
                value = getattr(part, name)
                if name == "parent":
                    value = np.where(value >= 0, value + offset, -1)
                elif name == "group":
                    value = np.where(value >= 0, value + group_offset, -1)
                fields[name].append(value)
            offset += len(part)
            group_offset += int(part.group.max()) + 1 if len(part) else 0
        return cls(**{name: np.concatenate(values) for name, values in fields.items()})

    def take(self, index: np.ndarray) -> TaskMeta:
        """The attributes at ``index``; parents not kept become -1, kept ones are renumbered."""
        position = np.full(len(self) + 1, -1, dtype=np.int64)
        position[index] = np.arange(len(index))
        values = {f.name: getattr(self, f.name)[index] for f in dataclasses.fields(self)}
        values["parent"] = position[self.parent[index]]  # parent -1 reads the trailing -1
        return TaskMeta(**values)

    def columns(self, job_ids: np.ndarray) -> dict[str, np.ndarray]:
        """The extra columns (``EXTRA_COLUMNS``) for a table whose job ids are ``job_ids``."""
        ids = np.asarray(job_ids, dtype=object)
        group_label = np.where(self.group >= 0,
                               np.char.add(np.char.add(self.workload.astype(str), "-"),
                                           self.group.astype(str)), "")
        parent_ids = np.where(self.parent >= 0, ids[np.maximum(self.parent, 0)], "")
        return {
            "workload": self.workload.astype(str),
            "task_group": group_label.astype(str),
            "task_stage": self.stage.astype(np.int64),
            "task_variant": self.variant.astype(str),
            "parent_id": parent_ids.astype(str),
            "gpu_util": self.gpu_util.astype(np.float64),
        }


def parents_from_successors(successor: np.ndarray) -> np.ndarray:
    """The predecessor index of every job (-1 if none) from a successor-index array."""
    parent = np.full(len(successor), -1, dtype=np.int64)
    linked = np.flatnonzero(successor >= 0)
    parent[successor[linked]] = linked
    return parent
