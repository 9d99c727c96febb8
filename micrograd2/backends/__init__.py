"""Array backends for the vectorized engine: one file per device behind ``base.ArrayBackend``."""
