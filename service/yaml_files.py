"""Reading the project's YAML files (catalogs, registry, exemplars, cues, messages) with libyaml's parser.

PyYAML's pure-Python safe loader spent about a second of every start on these files; its C loader (CSafeLoader,
built into the PyYAML wheels) reads the same files into the same values about ten times faster. It raises the same
yaml.YAMLError subclasses with the same problem marks. A PyYAML built without libyaml falls back to the Python loader.
"""

from __future__ import annotations

from typing import IO, Any

import yaml

SafeLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(stream: str | bytes | IO[str]) -> Any:
    """yaml.safe_load, by the C parser when there is one."""
    return yaml.load(stream, Loader=SafeLoader)  # noqa: S506  (a safe loader: CSafeLoader or SafeLoader)
