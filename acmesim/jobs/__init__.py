"""THE job: every field of a job declared once (``acmesim.jobs.fields``).

The normalized table's columns the engine reads, the engine ``Job``'s attributes, the read-only
view policies see, the recorder and the ``jobs.csv`` schema are all derived from ``FIELDS``.
"""

from acmesim.jobs.fields import (
    FIELDS,
    INPUT_COLUMNS,
    OUTPUT_FIELDS,
    RECORDED,
    RECORDER_FIELDS,
    VIEW_FIELDS,
    JobField,
    field,
)

__all__ = ["FIELDS", "INPUT_COLUMNS", "OUTPUT_FIELDS", "RECORDED", "RECORDER_FIELDS",
           "VIEW_FIELDS", "JobField", "field"]
