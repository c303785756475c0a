"""``builtin:NAME?opt=val&...`` names, resolved lazily.

Agents are imported only when asked for, so that ``enoch agent --agent builtin:random`` does
not pay for importing the search engine.
"""

from __future__ import annotations

import importlib
from typing import Any
from urllib.parse import parse_qsl

from enoch.errors import InputError

# name -> "module:Class". Each class takes its options as keyword strings.
BUILTINS: dict[str, str] = {
    "microchess": "enoch.microchess.agent:MicroChessAgent",
    "random": "enoch.agents.simple:RandomAgent",
    "greedy": "enoch.agents.simple:GreedyAgent",
    "engine": "enoch.engine.agent:EngineAgent",
    "enochian-random": "enoch.enochian.agents:RandomAgent",
    "enochian-greedy": "enoch.enochian.agents:GreedyAgent",
    "enochian-search": "enoch.enochian.agents:SearchAgent",
}


def parse_builtin(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``NAME?a=1&b=2`` (with or without the ``builtin:`` prefix) into name and options."""
    if spec.startswith("builtin:"):
        spec = spec[len("builtin:") :]
    name, _, query = spec.partition("?")
    if not name:
        raise InputError("builtin agent name is empty (expected e.g. builtin:random)")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise InputError(f"bad options {query!r} for builtin:{name} (expected a=1&b=2)") from None
    return name, dict(pairs)


def make_builtin(spec: str, **extra: Any) -> Any:
    """Create a built-in agent from its name; unknown names and bad options are InputErrors."""
    name, options = parse_builtin(spec)
    target = BUILTINS.get(name)
    if target is None:
        known = ", ".join(sorted(BUILTINS))
        raise InputError(f"unknown builtin agent {name!r} (known: {known})")
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    try:
        return cls(**options, **extra)
    except TypeError as exc:
        raise InputError(f"bad options for builtin:{name}: {exc}") from None
