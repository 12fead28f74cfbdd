"""Column arrays of generated jobs and their conversion to the normalized job table."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from acmesim.core.rng import RngStreams
from acmesim.synth.jobs import STATE_NAMES
from acmesim.synth.profiles import WorkloadProfile

SLURM_FIRST_ID = 5_778_432
"""First Seren job id of the release's example rows (schema_examples.md)."""

_BASE36 = np.frombuffer(b"0123456789abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)


@dataclasses.dataclass
class JobArrays:
    """Generated jobs as aligned numpy arrays (integer seconds from the trace start)."""

    type_code: np.ndarray
    gpus: np.ndarray
    submit: np.ndarray
    work: np.ndarray
    state: np.ndarray
    user: np.ndarray
    klass: np.ndarray
    successor: np.ndarray
    gap: np.ndarray
    start: np.ndarray
    end: np.ndarray
    cpus: np.ndarray | None = None

    @classmethod
    def concat(cls, parts: list[JobArrays]) -> JobArrays:
        """Stack several job sets (successor indices are shifted to stay valid)."""
        offset = 0
        fields: dict[str, list[np.ndarray]] = {f.name: [] for f in dataclasses.fields(cls)}
        for part in parts:
            n = len(part.gpus)
            cpus = part.cpus if part.cpus is not None else np.full(n, -1, dtype=np.int64)
            for name in fields:
                value = cpus if name == "cpus" else getattr(part, name)
                if name == "successor":
                    value = np.where(value >= 0, value + offset, -1)
                fields[name].append(value)
            offset += n
        return cls(**{name: np.concatenate(values) if values else np.zeros(0, np.int64)
                      for name, values in fields.items()})

    def take(self, index: np.ndarray) -> JobArrays:
        """The jobs at ``index`` (successor links are dropped: they are no longer needed)."""
        values = {f.name: getattr(self, f.name)[index] for f in dataclasses.fields(self)
                  if getattr(self, f.name) is not None}
        values["successor"] = np.full(len(index), -1, dtype=np.int64)
        return JobArrays(**values)


def build_table(profile: WorkloadProfile, jobs: JobArrays, start_epoch: int,
                streams: RngStreams) -> pd.DataFrame:
    """The normalized job table (sorted by submission) of ``jobs``."""
    order = np.lexsort((np.arange(len(jobs.submit)), jobs.submit))
    jobs = jobs.take(order)
    n = len(jobs.submit)
    type_names = np.array([t.name for t in profile.types] + [profile.cpu.job_type], dtype=object)
    gpus = jobs.gpus
    per_node = profile.gpus_per_node
    node_num = np.where(gpus > per_node, -(-gpus // per_node), 1)
    unset = -1  # the CPU count of a job whose ``cpus`` were never drawn (as in ``concat``)
    cpus = np.where(gpus > 0, gpus * profile.cpus_per_gpu,
                    unset if jobs.cpus is None else jobs.cpus)
    times = {name: pd.to_datetime(start_epoch + values, unit="s", utc=True).as_unit("ns")
             for name, values in (("submit_time", jobs.submit), ("start_time", jobs.start),
                                  ("end_time", jobs.end))}
    frame = pd.DataFrame({
        "job_id": job_ids(profile, n, streams.fresh("job_ids")),
        "user": user_names(profile, streams.fresh("user_names"))[jobs.user],
        "type": type_names[jobs.type_code],
        "state": np.array(STATE_NAMES, dtype=object)[jobs.state],
        **times,
        "run_time": (jobs.end - jobs.start).astype(np.float64),
        "queue_time": (jobs.start - jobs.submit).astype(np.float64),
        "gpu_num": gpus.astype(np.int64),
        "node_num": node_num.astype(np.int64),
        "cpu_num": cpus.astype(np.int64),
    })
    for column in ("job_id", "user", "type", "state"):
        frame[column] = frame[column].astype(str)
    return _add_extras(profile, frame)


def _add_extras(profile: WorkloadProfile, frame: pd.DataFrame) -> pd.DataFrame:
    """Source columns of the profile's published schema (Kalos pod memory, outcome times)."""
    extra = profile.extra_columns
    if not extra:
        return frame
    gpus = frame["gpu_num"].to_numpy()
    pod_gpus = np.minimum(gpus, profile.gpus_per_node)
    frame["mem_per_pod_GB"] = np.where(gpus > 0, pod_gpus * extra["mem_per_gpu_GB"],
                                       extra["cpu_pod_mem_GB"]).astype(np.int64)
    frame["shared_mem_per_pod"] = np.where(gpus > 0, float(extra["shared_mem_per_pod"]), np.nan)
    failed = frame["state"].isin(("FAILED", "TIMEOUT", "NODE_FAIL"))
    frame["fail_time"] = frame["end_time"].where(failed)
    frame["stop_time"] = frame["end_time"].where(frame["state"] == "CANCELLED")
    return frame


def job_ids(profile: WorkloadProfile, n: int, rng: np.random.Generator) -> np.ndarray:
    """Job ids in submission order: Slurm integers (Seren) or ``dlc`` + 13 base-36 (Kalos)."""
    if profile.job_id_format == "slurm":
        steps = 1 + rng.poisson(0.4, n)
        return (SLURM_FIRST_ID + np.cumsum(steps) - steps[0]).astype(str).astype(object)
    codes = _BASE36[rng.integers(0, 36, size=(n, 13))]
    text = np.char.add("dlc", codes.view("S13").ravel().astype(str))
    if len(np.unique(text)) != n:  # pragma: no cover - 36^13 makes this practically impossible
        raise RuntimeError("duplicate generated job id")
    return text.astype(object)


def user_names(profile: WorkloadProfile, rng: np.random.Generator) -> np.ndarray:
    """Distinct published-looking user ids for the profile's user pool."""
    digits = profile.user_format.format(0).count("0")
    number_space = 10 ** digits
    numbers = rng.choice(number_space, size=profile.users, replace=False)
    return np.array([profile.user_format.format(int(k)) for k in numbers], dtype=object)
