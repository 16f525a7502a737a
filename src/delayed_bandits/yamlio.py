"""Reading YAML: the config files, the config schema and each paper's ``schema.yaml``.

A bottom module (it imports no other of the package), so that the paper registry (``papers``),
which reads each paper's schema, and ``config``, which reads the rest, can both use it."""

from __future__ import annotations

from typing import Any

import yaml

# libyaml's loader where PyYAML was built with it: every job reads the config and the schemas, and
# the pure-Python parser took a quarter of a second of each job's start-up
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(text: str) -> Any:
    """``yaml.safe_load``, with libyaml when available."""
    return yaml.load(text, Loader=_LOADER)
