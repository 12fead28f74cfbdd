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
    def concat(cls, parts: list[JobArrays], consume: bool = False) -> JobArrays:
        """Stack several job sets (successor indices are shifted to stay valid).

        ``consume``: release each part's array once it is stacked (the parts' fields become
        ``None``), so the parts and the result are never held whole side by side.
        """
        sizes = [len(part.gpus) for part in parts]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64).tolist()
        fields = {}
        for field in dataclasses.fields(cls):
            values = []
            for part, n, offset in zip(parts, sizes, offsets, strict=True):
                value = getattr(part, field.name)
                if field.name == "cpus" and value is None:
                    value = np.full(n, -1, dtype=np.int64)
                if field.name == "successor":
                    value = np.where(value >= 0, value + offset, -1)
                values.append(value)
            fields[field.name] = np.concatenate(values) if values else np.zeros(0, np.int64)
            if consume:
                del values
                for part in parts:
                    setattr(part, field.name, None)
        return cls(**fields)

    def take(self, index: np.ndarray) -> JobArrays:
        """The jobs at ``index`` (successor links are dropped: they are no longer needed)."""
        values = {f.name: getattr(self, f.name)[index] for f in dataclasses.fields(self)
                  if getattr(self, f.name) is not None}
        values["successor"] = np.full(len(index), -1, dtype=np.int64)
        return JobArrays(**values)


TABLE_FIELDS = ("type_code", "gpus", "submit", "state", "user", "start", "end", "cpus")
"""The ``JobArrays`` fields the table is built from."""


def build_table(profile: WorkloadProfile, jobs: JobArrays, start_epoch: int,
                streams: RngStreams, consume: bool = False) -> pd.DataFrame:
    """The normalized job table (sorted by submission) of ``jobs``.

    ``consume``: release each array of ``jobs`` once its column is built (the fields become
    ``None``; at tens of millions of jobs the arrays and the table do not fit side by side).
    """
    order = np.lexsort((np.arange(len(jobs.submit)), jobs.submit))
    identity = bool((order == np.arange(len(order))).all())
    if consume:
        for field in dataclasses.fields(jobs):
            if field.name not in TABLE_FIELDS:
                setattr(jobs, field.name, None)

    def sorted_field(name: str) -> np.ndarray:
        """Field ``name`` in submission order (one field copied at a time, not every one)."""
        values = getattr(jobs, name)
        if consume:
            setattr(jobs, name, None)
        return values if identity else values[order]

    n = len(order)
    type_names = np.array([t.name for t in profile.types] + [profile.cpu.job_type], dtype=object)
    gpus = sorted_field("gpus")
    per_node = profile.gpus_per_node
    node_num = np.where(gpus > per_node, -(-gpus // per_node), 1)
    cpus = np.where(gpus > 0, gpus * profile.cpus_per_gpu, sorted_field("cpus"))
    submit, start, end = sorted_field("submit"), sorted_field("start"), sorted_field("end")
    times = {name: pd.to_datetime(start_epoch + values, unit="s", utc=True).as_unit("ns")
             for name, values in (("submit_time", submit), ("start_time", start),
                                  ("end_time", end))}
    seconds = {"run_time": (end - start).astype(np.float64),
               "queue_time": (start - submit).astype(np.float64)}
    del submit, start, end
    frame = pd.DataFrame({
        "job_id": job_ids(profile, n, streams.fresh("job_ids")),
        "user": _text(user_names(profile, streams.fresh("user_names")), sorted_field("user")),
        "type": _text(type_names, sorted_field("type_code")),
        "state": _text(np.array(STATE_NAMES, dtype=object), sorted_field("state")),
        **times,
        **seconds,
        "gpu_num": gpus.astype(np.int64, copy=False),
        "node_num": node_num.astype(np.int64, copy=False),
        "cpu_num": cpus.astype(np.int64, copy=False),
    }, copy=False)
    for column in ("job_id", "user", "type", "state"):
        frame[column] = frame[column].astype(str)
    return _add_extras(profile, frame)


def _text(names: np.ndarray, codes: np.ndarray) -> pd.Series:
    """The text column ``names[codes]``, built by Arrow without a Python string per row.

    (Indexing an object array gives one reference per row, and pandas' conversion to its
    ``str`` dtype then visits every one: ~100 bytes and ~0.3 us per row at tens of millions.)
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    codes = np.where(codes < 0, codes + len(names), codes)  # numpy semantics: -1 is the last
    taken = pc.take(pa.array(list(names), type=pa.string()), pa.array(codes))
    return pd.Series(taken.to_pandas(), copy=False).astype("str")


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


def job_ids(profile: WorkloadProfile, n: int, rng: np.random.Generator) -> pd.Series:
    """Job ids in submission order: Slurm integers (Seren) or ``dlc`` + 13 base-36 (Kalos)."""
    if profile.job_id_format == "slurm":
        steps = 1 + rng.poisson(0.4, n)
        return pd.Series(SLURM_FIRST_ID + np.cumsum(steps) - steps[0]).astype("str")
    codes = _BASE36[rng.integers(0, 36, size=(n, 13))]
    text = np.char.add("dlc", codes.view("S13").ravel().astype(str))
    if len(np.unique(text)) != n:  # pragma: no cover - 36^13 makes this practically impossible
        raise RuntimeError("duplicate generated job id")
    return pd.Series(text.astype(object)).astype("str")


def user_names(profile: WorkloadProfile, rng: np.random.Generator) -> np.ndarray:
    """Distinct published-looking user ids for the profile's user pool."""
    digits = profile.user_format.format(0).count("0")
    number_space = 10 ** digits
    numbers = rng.choice(number_space, size=profile.users, replace=False)
    return np.array([profile.user_format.format(int(k)) for k in numbers], dtype=object)
