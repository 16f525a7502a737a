"""Per-paper plug-ins: each module defines a paper's setting and algorithms (see algorithms.py)."""
