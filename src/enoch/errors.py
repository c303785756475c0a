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
