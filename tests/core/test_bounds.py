"""Range checks of numeric options (acmesim.core.bounds), alone and through policy options."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acmesim.core.bounds import (
    option_values,
    require_finite_non_negative,
    require_non_negative,
    require_positive,
    require_within,
)
from acmesim.policies.checkpoint.cost import StorageModel
from acmesim.policies.recovery.automatic import AutomaticOptions
from acmesim.policies.recovery.base import ManualOptions

numbers = st.floats(allow_nan=True, allow_infinity=True)


def _passes(check, **values) -> bool:
    try:
        check(**values)
    except ValueError as error:
        name, value = next(iter(values.items()))
        assert str(error).startswith(f"{name} must be "), error
        assert str(error).endswith(f"got {value!r}"), error
        return False
    return True


@given(numbers)
def test_positive(x: float) -> None:
    """Passes exactly when x > 0; the message names the option and its value."""
    assert _passes(require_positive, rate=x) == (x > 0)


@given(numbers)
def test_non_negative(x: float) -> None:
    """Passes exactly when x >= 0 (NaN fails, infinity passes)."""
    assert _passes(require_non_negative, delay=x) == (x >= 0)


@given(numbers)
def test_finite_non_negative(x: float) -> None:
    """Passes exactly when x is finite and >= 0."""
    assert _passes(require_finite_non_negative, delta=x) == (math.isfinite(x) and x >= 0)


@given(numbers, st.floats(-10, 10), st.floats(0, 10))
def test_within_is_the_closed_range(x: float, low: float, width: float) -> None:
    """Passes exactly when low <= x <= high, the bounds themselves included."""
    high = low + width

    def check(**values: float) -> None:
        require_within(low, high, **values)

    assert _passes(check, share=x) == (low <= x <= high)
    assert _passes(check, share=low)
    assert _passes(check, share=high)


def test_unset_options_pass_and_the_first_bad_one_is_named() -> None:
    """None is an unset optional option; among several, the first bad value is reported."""
    for check in (require_positive, require_non_negative, require_finite_non_negative):
        check(a=None)
    require_within(0, 1, a=None)
    with pytest.raises(ValueError, match=r"^b must be > 0, got -2$"):
        require_positive(a=1.0, b=-2, c=-3)


def test_option_values_reads_the_named_fields() -> None:
    """The keyword arguments of a check of several options, in the order given."""
    options = ManualOptions()
    assert option_values(options, "delay_sigma", "work_end_hour") == {
        "delay_sigma": options.delay_sigma, "work_end_hour": options.work_end_hour}


@pytest.mark.parametrize(("options", "kwargs", "message"), [
    (ManualOptions, {"work_start_hour": 25.0}, "work_start_hour must be within [0, 24], got 25.0"),
    (ManualOptions, {"delay_sigma": -1.0}, "delay_sigma must be >= 0, got -1.0"),
    (AutomaticOptions, {"manual_fraction": 1.5}, "manual_fraction must be within [0, 1], got 1.5"),
    (AutomaticOptions, {"work_end_hour": -1.0}, "work_end_hour must be within [0, 24], got -1.0"),
    (StorageModel, {"storage_gbps": 0.0}, "storage_gbps must be > 0, got 0.0"),
    (StorageModel, {"overhead_s": math.nan}, "overhead_s must be >= 0, got nan"),
])
def test_policy_options_report_the_bad_value(options, kwargs, message) -> None:
    """The policies' options check their numbers with these checks (subclasses included)."""
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        options(**kwargs)
