"""Declared options of a game: one place from which the CLI, the JSON Schemas and forms are made.

A game lists its options as :class:`OptionSpec` values (name, type, default, choices or range,
help). ``--option KEY=VALUE`` on the command line, a JSON body from the web page and a Python
caller all go through :func:`parse_options`, so a value that one of them accepts the others
accept too, and the error for a bad one reads the same everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from enoch._numbers import parse_float, parse_int
from enoch.errors import InputError

TYPES = ("str", "int", "float", "bool")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


@dataclass(frozen=True)
class OptionSpec:
    """One option: ``type`` is ``str``, ``int``, ``float`` or ``bool``; ``default`` may be None
    (the option is then optional and None means "not set")."""

    name: str
    type: str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"option {self.name}: unknown type {self.type!r}")

    def parse(self, value: Any, game: str = "") -> Any:
        """A value from text (``--option``) or from a Python/JSON value, checked."""
        where = f"option {self.name}" + (f" of {game}" if game else "")
        if value is None:
            if self.default is None:
                return None
            raise InputError(f"{where} must not be null")
        if self.type == "bool":
            if isinstance(value, bool):
                out: Any = value
            elif isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
                out = value.strip().lower() in _TRUE
            else:
                raise InputError(f"{where} must be true or false, got {_short(value)}")
        elif self.type == "int":
            if isinstance(value, int) and not isinstance(value, bool):
                out = value
            elif isinstance(value, str):
                out = parse_int(value.strip(), where)
            else:
                raise InputError(f"{where} must be an integer, got {_short(value)}")
        elif self.type == "float":
            if isinstance(value, int | float) and not isinstance(value, bool):
                out = float(value)
                if not math.isfinite(out):
                    raise InputError(f"{where} must be a finite number")
            elif isinstance(value, str):
                out = parse_float(value.strip(), where)
            else:
                raise InputError(f"{where} must be a number, got {_short(value)}")
        else:
            if not isinstance(value, str):
                raise InputError(f"{where} must be a string, got {_short(value)}")
            out = value
        if self.choices is not None and out not in self.choices:
            shown = ", ".join(str(c) for c in self.choices)
            raise InputError(f"{where} must be one of {shown}, got {_short(value)}")
        if self.minimum is not None and out < self.minimum:
            raise InputError(f"{where} must be at least {self.minimum:g}, got {out}")
        if self.maximum is not None and out > self.maximum:
            raise InputError(f"{where} must be at most {self.maximum:g}, got {out}")
        return out

    def json_schema(self) -> dict[str, Any]:
        """The option as a JSON Schema property."""
        kind = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
        out: dict[str, Any] = {"description": self.help}
        out["type"] = [kind[self.type], "null"] if self.default is None else kind[self.type]
        if self.default is not None:
            out["default"] = self.default
        if self.choices is not None:
            out["enum"] = list(self.choices) + ([None] if self.default is None else [])
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_options(
    specs: Sequence[OptionSpec], values: Mapping[str, Any], *, game: str = ""
) -> dict[str, Any]:
    """Every declared option, from ``values`` where given and the default elsewhere."""
    by_name = {s.name: s for s in specs}
    for name in values:
        if name not in by_name:
            known = ", ".join(by_name) or "none"
            where = f" for {game}" if game else ""
            raise InputError(f"unknown option {str(name)[:40]!r}{where} (options: {known})")
    return {s.name: s.parse(values[s.name], game) if s.name in values else s.default for s in specs}


def parse_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """``["players=4", "array=all"]`` (repeatable ``--option KEY=VALUE``) as a dict."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        key = key.strip()
        if not eq or not key:
            raise InputError(f"--option {_short(pair)}: expected KEY=VALUE")
        if key in out:
            raise InputError(f"--option {key} given twice")
        out[key] = value
    return out


def options_schema(specs: Sequence[OptionSpec]) -> dict[str, Any]:
    """The options of a game as one JSON Schema object."""
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {s.name: s.json_schema() for s in specs},
    }
