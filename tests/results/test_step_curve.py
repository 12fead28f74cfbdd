"""The step curve folded at the end is the curve of folding each pass's row as it came."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.results.recorders import StepRecorder


def _sequential(rows):
    """The curve by the rule itself: skip a row equal to the last kept, replace one at the same
    time, else append."""
    curve, last, last_time = [], None, math.nan
    for now, counts, load in rows:
        if (counts, load) == last:
            continue
        if now == last_time:
            curve[-1] = (now, counts, load)
        else:
            curve.append((now, counts, load))
            last_time = now
        last = (counts, load)
    return curve


def _curve(recorder):
    out = recorder.arrays()
    counts = zip(*(out[name].tolist() for name in StepRecorder.COUNTS), strict=True)
    return list(zip(out["time"].tolist(), counts, out["busy_load"].tolist(), strict=True))


_row = st.tuples(st.integers(0, 3), st.tuples(*[st.integers(0, 2)] * 5),
                 st.sampled_from([0, 0, 0, 7]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_row, max_size=60), st.integers(1, 7))
def test_the_fold_equals_the_rule_applied_row_by_row(steps, chunk):
    rows, now = [], 0.0
    for advance, counts, load in steps:  # times never go back
        now += advance
        rows.append((now, counts, load))
    recorder = StepRecorder()
    recorder.CHUNK = chunk  # chunk boundaries anywhere
    for now, counts, load in rows:
        recorder.record(now, *counts, load)
    expected = [(t, c, load) for t, c, load in _sequential(rows)]
    assert _curve(recorder) == expected
    assert _curve(recorder) == expected  # a second read folds nothing again


def test_rows_added_after_a_fold_continue_the_same_curve():
    recorder = StepRecorder()
    recorder.record(1.0, 1, 1, 1, 0, 0)
    recorder.record(2.0, 2, 2, 1, 0, 0)
    recorder.record(2.0, 1, 1, 1, 0, 0)  # replaces the row at 2.0: equal to the one at 1.0
    recorder._fold()
    recorder.record(3.0, 1, 1, 1, 0, 0)  # equal to the last row: skipped
    recorder.record(3.0, 4, 4, 1, 0, 0, 5)
    out = recorder.arrays()
    assert out["time"].tolist() == [1.0, 2.0, 3.0]
    assert out["busy_gpus"].tolist() == [1, 1, 4]
    assert out["busy_load"].tolist() == [0, 0, 5]
    assert len(recorder) == 3 and len(recorder.raw) == 3 * StepRecorder.ROW.size  # rest dropped
