"""The one interface every player implements, whatever its transport.

An agent maps a state JSON object (already parsed into a dict) to an answer JSON object. The
referee never trusts the answer: it validates and applies it. Built-in agents, external
programs (``exec:``, ``jsonl:``), HTTP services and UCI engines all sit behind this shape, so
that one referee serves every kind of player (and, with another state schema, Enochian chess).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Agent(Protocol):
    """A player. ``answer`` may raise :class:`enoch.errors.AgentError` when it cannot answer."""

    name: str

    def answer(self, state: dict[str, Any]) -> dict[str, Any]:
        """Answer one state with one answer object (a move or an action)."""
        ...

    def close(self) -> None:
        """Release processes, sockets or tables; called once when the game or match ends."""
        ...
