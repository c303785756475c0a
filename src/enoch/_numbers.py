"""Bounded number parsing for everything a user or an agent writes as text.

``int("٣")`` is 3, ``int(" +3 ")`` is 3, ``float("1e400")`` is infinity and ``int`` of ten
thousand digits raises ``ValueError`` from deep inside Python: none of that is what a person
meant by a number on a command line. These readers take plain ASCII decimals only, refuse what
is not finite, and say in one line what was expected.
"""

from __future__ import annotations

import math
import re

from enoch.errors import InputError

_INT = re.compile(r"-?[0-9]{1,18}")
_FLOAT = re.compile(r"-?(?:[0-9]{1,15}(?:\.[0-9]{0,15})?|\.[0-9]{1,15})(?:[eE][-+]?[0-9]{1,3})?")


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def parse_int(text: str, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """An ASCII decimal integer of at most 18 digits within ``[lo, hi]``."""
    if not isinstance(text, str) or not _INT.fullmatch(text):
        raise InputError(f"{what} must be an integer, got {_shown(str(text))}")
    value = int(text)
    _check_range(value, what, lo, hi)
    return value


def parse_float(text: str, what: str, lo: float | None = None, hi: float | None = None) -> float:
    """A finite ASCII decimal number within ``[lo, hi]``."""
    if not isinstance(text, str) or not _FLOAT.fullmatch(text):
        raise InputError(f"{what} must be a number, got {_shown(str(text))}")
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"{what} must be a finite number, got {_shown(text)}")
    _check_range(value, what, lo, hi)
    return value


def _check_range(value: float, what: str, lo: float | None, hi: float | None) -> None:
    if lo is not None and value < lo:
        raise InputError(f"{what} must be at least {lo:g}, got {value:g}")
    if hi is not None and value > hi:
        raise InputError(f"{what} must be at most {hi:g}, got {value:g}")
