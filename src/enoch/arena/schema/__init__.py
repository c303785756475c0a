"""The JSON Schema of the arena's event logs, shipped with the package.

Why ship it. An event log is read by programs that did not write it (dashboards, replayers,
the tests of people's agents), long after the game, often by a version of enoch other than
the one that wrote it; the schema is the contract between them. ``docs/schema/`` holds the
copy people read; this one is the copy a program can load from an installed enoch, with no
checkout at hand. The two are byte-identical (a test keeps them so).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def events_schema() -> dict[str, Any]:
    """The event-log schema (JSON Schema Draft 2020-12): every line of every game's log."""
    text = resources.files(__name__).joinpath("events.schema.json").read_text(encoding="utf-8")
    result: dict[str, Any] = json.loads(text)
    return result


__all__ = ["events_schema"]
