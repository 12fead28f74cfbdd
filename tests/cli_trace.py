"""A tiny trace in the published Seren schema, written for the CLI integration tests."""

from __future__ import annotations

from pathlib import Path

HEADER = ("job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,"
          "duration,queue,gpu_time")

# (job_id, type, state, nodes, gpus, submit, start, end) on 2023-03-01, +08:00 as published
ROWS = [
    ("101", "Pretrain", "COMPLETED", 2, 16, "00:00:00", "00:00:10", "03:00:10"),
    ("102", "Eval", "COMPLETED", 1, 1, "00:05:00", "00:05:02", "00:15:02"),
    ("103", "SFT", "FAILED", 1, 8, "00:10:00", "00:10:30", "00:40:30"),
    ("104", "Debug", "CANCELLED", 1, 4, "00:20:00", "00:20:01", "00:21:01"),
    ("105", "Pretrain", "COMPLETED", 2, 16, "00:30:00", "03:00:20", "05:00:20"),
    ("106", "Eval", "COMPLETED", 1, 2, "01:00:00", "01:00:05", "01:30:05"),
    ("107", "Other", "COMPLETED", 1, 8, "01:10:00", "01:10:03", "02:10:03"),
    ("108", "Eval", "FAILED", 1, 1, "02:00:00", "02:00:01", "02:00:31"),
]


def _seconds(clock: str) -> int:
    h, m, s = (int(part) for part in clock.split(":"))
    return h * 3600 + m * 60 + s


def write_tiny_trace(path: Path) -> Path:
    """Write the eight-job Seren-schema trace to ``path`` and return it."""
    lines = [HEADER]
    for job_id, type_, state, nodes, gpus, submit, start, end in ROWS:
        duration = _seconds(end) - _seconds(start)
        queue = _seconds(start) - _seconds(submit)
        stamp = "2023-03-01 {}+08:00".format
        lines.append(f"{job_id},u1,{nodes},{gpus},{16 * gpus},{type_},{state},{stamp(submit)},"
                     f"{stamp(start)},{stamp(end)},{duration},{queue},{float(duration * gpus)}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
