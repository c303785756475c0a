"""Built-in agents made from a table of ``name -> "module:Class"`` (imported only when asked
for, so that naming the engine does not import it)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from enoch.errors import InputError


def make_from_table(
    name: str, options: Mapping[str, str], table: Mapping[str, str], game: str
) -> Any:
    """The agent ``builtin:name`` of ``game``; unknown names and bad options are InputErrors."""
    target = table.get(name)
    if target is None:
        known = ", ".join(sorted(table))
        raise InputError(f"unknown agent builtin:{name[:40]} for {game} (its built-ins: {known})")
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    try:
        return cls(**options)
    except TypeError as exc:
        raise InputError(f"bad options for builtin:{name}: {exc}") from None
