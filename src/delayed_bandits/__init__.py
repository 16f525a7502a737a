"""delayed-bandits: reference reproduction of five papers on bandits with delayed feedback."""

__version__ = "0.1.0"
