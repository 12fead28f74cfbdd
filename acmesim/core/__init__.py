"""Core building blocks shared by every layer: errors, registries, RNG streams, atomic files."""
