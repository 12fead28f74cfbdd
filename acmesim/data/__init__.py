"""Data files shipped with acmesim (the bundled sample trace, ``seren_sample.csv``)."""
