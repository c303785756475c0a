"""Bounded number parsing for everything a user or an agent writes as text.

``int("٣")`` is 3, ``int(" +3 ")`` is 3, ``float("1e400")`` is infinity and ``int`` of ten
thousand digits raises ``ValueError`` from deep inside Python: none of that is what a person
meant by a number on a command line. These readers take plain ASCII decimals only (an optional
``-``, no ``+``, no spaces, no other scripts' digits), refuse what is not finite, and say in one
line what was expected, quoting at most a short prefix of what was given.

They serve the command line (:func:`arg` makes argparse types of them, so a bad flag is refused
before any game starts), ``--option`` values, FEN clocks and agent options. JSON numbers are
already numbers: :func:`check_int` holds them to the same bounds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from enoch.errors import InputError, quote

# 18 digits fit a 64-bit integer and are far more than any count enoch reads. (Patterns, not
# compiled at import: the re module compiles and caches them at first use, off the cold start.)
_INT = r"-?[0-9]{1,18}"
_FLOAT = r"-?(?:[0-9]{1,15}(?:\.[0-9]{0,15})?|\.[0-9]{1,15})(?:[eE][-+]?[0-9]{1,3})?"

# Seconds: one bound for every time a user gives (--movetime, --timeout, --grace, --tc). A
# million seconds (11.6 days) is longer than anyone waits for one answer and stays below the
# operating system's timer limits (poll() takes a C int of milliseconds: 24.8 days).
MAX_SECONDS = 1_000_000.0


def parse_int(text: str, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """An ASCII decimal integer of at most 18 digits within ``[lo, hi]``."""
    if not isinstance(text, str) or not re.fullmatch(_INT, text):
        raise InputError(f"{what} must be an integer, got {quote(text)}")
    value = int(text)
    _check_range(value, what, lo, hi)
    return value


def parse_float(text: str, what: str, lo: float | None = None, hi: float | None = None) -> float:
    """A finite ASCII decimal number within ``[lo, hi]``."""
    if not isinstance(text, str) or not re.fullmatch(_FLOAT, text):
        raise InputError(f"{what} must be a number, got {quote(text)}")
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"{what} must be a finite number, got {quote(text)}")
    _check_range(value, what, lo, hi)
    return value


def check_int(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """A JSON integer (not a boolean, not a float) within ``[lo, hi]``."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"{what} must be an integer, got {quote(value)}")
    _check_range(value, what, lo, hi)
    return value


def _check_range(value: float, what: str, lo: float | None, hi: float | None) -> None:
    if lo is not None and value < lo:
        raise InputError(f"{what} must be at least {lo:.12g}, got {_num(value)}")
    if hi is not None and value > hi:
        raise InputError(f"{what} must be at most {hi:.12g}, got {_num(value)}")


def _num(value: float) -> str:
    """A number for a message: a short prefix of a huge integer, ``%g`` of a float."""
    if isinstance(value, int):
        return quote(value)
    return f"{value:.12g}"


def arg(
    kind: str, lo: float | None = None, hi: float | None = None, *, above: float | None = None
) -> Callable[[str], Any]:
    """An argparse ``type=`` for an ``"int"`` or a ``"float"`` within ``[lo, hi]`` (``above``:
    strictly greater than). argparse turns its refusal into one line and exit status 2."""

    def convert(text: str) -> Any:
        import argparse

        try:
            if kind == "int":
                lo_i = None if lo is None else int(lo)
                hi_i = None if hi is None else int(hi)
                return parse_int(text, "the value", lo_i, hi_i)
            value = parse_float(text, "the value", lo, hi)
            if above is not None and not value > above:
                raise InputError(f"the value must be more than {above:g}, got {value:g}")
            return value
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = kind  # argparse names the type in its messages
    return convert


def seconds(*, lo: float = 0.0, positive: bool = True) -> Callable[[str], float]:
    """An argparse type for seconds: finite, at most :data:`MAX_SECONDS`, and positive (or,
    with ``positive=False``, at least ``lo``)."""
    return arg("float", lo, MAX_SECONDS, above=0.0 if positive else None)
