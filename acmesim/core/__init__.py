"""Core building blocks shared by every layer: errors, registries, RNG streams, atomic
files, interrupts, the typed replay configuration (no domain)."""
