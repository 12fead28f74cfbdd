"""Fit and check scripts behind acmesim's calibrated constants (run by hand, not shipped)."""
