"""Property: any normalized Acme table survives write -> load unchanged (both schemas)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.trace.formats import write_acme_csv
from acmesim.trace.loaders import load_trace
from acmesim.trace.schema import FINAL_STATES, JOB_TYPES

T0 = pd.Timestamp("2023-03-01", tz="UTC").value // 10**9
HALF_YEAR = 183 * 86400
# Printable text including CSV metacharacters (comma, quote) but never empty or a line break.
TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=0x24F, exclude_characters="\x7f"),
               min_size=1, max_size=12)


@st.composite
def rows(draw, kalos: bool):
    submit = draw(st.integers(T0, T0 + HALF_YEAR))
    start = submit + draw(st.integers(0, 86400))
    end = start + draw(st.integers(0, 30 * 86400))
    state = draw(st.sampled_from(FINAL_STATES))
    row = {
        "user": draw(TEXT), "type": draw(st.sampled_from(JOB_TYPES)), "state": state,
        "submit_time": submit, "start_time": start, "end_time": end,
        "gpu_num": draw(st.integers(0, 2048)), "node_num": draw(st.integers(0, 302)),
        "cpu_num": draw(st.integers(0, 20000)),
    }
    if kalos:
        row["mem_per_pod_GB"] = draw(st.one_of(st.none(), st.integers(0, 4096)))
        row["shared_mem_per_pod"] = draw(st.one_of(
            st.none(), st.floats(0, 1e6, allow_nan=False, allow_infinity=False)))
        row["fail_time"] = draw(st.one_of(st.none(), st.just(end)))
        row["stop_time"] = draw(st.one_of(st.none(), st.integers(submit, end + 10)))
    return row


def normalized(records: list[dict], ids: list[str], kalos: bool) -> pd.DataFrame:
    """Records -> a table with exactly the loader's column order and dtypes."""
    columns = ["user", "type", "state", "submit_time", "start_time", "end_time", "gpu_num",
               "node_num", "cpu_num"]
    if kalos:
        columns += ["mem_per_pod_GB", "shared_mem_per_pod", "fail_time", "stop_time"]
    frame = pd.DataFrame(records, columns=columns)

    def stamps(column):
        seconds = frame[column].astype("float64").to_numpy()
        return pd.Series(pd.to_datetime(seconds, unit="s", utc=True)).astype(
            "datetime64[ns, UTC]")

    out = pd.DataFrame({"job_id": pd.Series(ids, dtype="str")})
    for column in ("user", "type", "state"):
        out[column] = frame[column].astype("str")
    for column in ("submit_time", "start_time", "end_time"):
        out[column] = stamps(column)
    out["run_time"] = (frame["end_time"] - frame["start_time"]).astype("float64")
    out["queue_time"] = (frame["start_time"] - frame["submit_time"]).astype("float64")
    for column in ("gpu_num", "node_num", "cpu_num"):
        out[column] = frame[column].astype("int64")
    if kalos:
        for column in ("mem_per_pod_GB", "shared_mem_per_pod"):
            out[column] = frame[column].astype("float64")
        for column in ("fail_time", "stop_time"):
            out[column] = stamps(column)
    return out


@settings(max_examples=40, deadline=None)
@given(data=st.data(), kalos=st.booleans())
def test_random_normalized_tables_round_trip_exactly(data, kalos):
    records = data.draw(st.lists(rows(kalos), min_size=0, max_size=25))
    ids = data.draw(st.lists(TEXT, min_size=len(records), max_size=len(records), unique=True))
    jobs = normalized(records, ids, kalos)
    cluster = "kalos" if kalos else "seren"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"trace_{cluster}.csv"
        write_acme_csv(jobs, path, cluster)
        back = load_trace(path, format="auto")
        assert back.attrs["load_report"].format == cluster
        pd.testing.assert_frame_equal(back, jobs)
        again = Path(tmp) / "again.csv"
        write_acme_csv(back, again, cluster)
        assert again.read_bytes() == path.read_bytes()
    assert np.all(back["run_time"].to_numpy() >= 0)
