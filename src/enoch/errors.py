"""Typed errors shared by every layer.

The CLI maps :class:`InputError` (and subclasses) to exit status 2 with one line on stderr,
anything else to exit status 1, so a user can tell "your input is wrong" from "enoch is broken".
"""

from __future__ import annotations


class EnochError(Exception):
    """Base class of every error enoch raises on purpose."""


class InputError(EnochError):
    """Input from a user or an agent is wrong; the message says what and where."""


class FenError(InputError):
    """A FEN string is malformed or describes an impossible position."""


class IllegalMoveError(InputError):
    """A move is well formed but not legal in the position."""


class ProtocolError(InputError):
    """A state or answer JSON does not follow the agent protocol."""


class AgentError(EnochError):
    """An agent could not be created or failed while answering."""


class AgentSetupError(InputError):
    """An agent cannot play at all as it is configured (an endpoint refused its API key, or
    knows no such model): the run stops with this message; it is nobody's forfeit."""


# How much of an offending value a message quotes: enough to recognise it, never the whole of
# a megabyte FEN (one line on stderr stays one short line).
QUOTE_CHARS = 40


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """``repr`` of a value for an error message, cut to a short prefix with ``...``.

    Integers of thousands of digits are cut without ever being converted whole (Python refuses
    to print an integer of more than 4300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of {value.bit_length() * 30103 // 100000 + 1} digits or so"
    if isinstance(value, str):
        head = value[: limit + 1]
        text = repr(head)
        if len(value) > limit or len(text) > limit + 2:
            return repr(value[: max(limit - 3, 1)]) + f"... ({len(value)} characters)"
        return text
    import reprlib  # only messages need it

    r = reprlib.Repr()
    r.maxstring = r.maxother = limit
    r.maxlevel, r.maxlist, r.maxdict = 2, 4, 4
    try:
        text = r.repr(value)
    except (ValueError, RecursionError):  # e.g. a huge integer inside a list
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
