"""Players of the FIDE referee: every kind of agent behind one small interface.

The referee hands a :class:`Turn` to :meth:`Player.ask` and gets back the raw answer: text
(from a program, exactly as it was written), a dict (from a Python agent), or an ``int`` move
(from a trusted in-process fast path). It never trusts any of them: the referee parses and
checks every answer itself.

Names: ``exec:CMD``, ``jsonl:CMD``, ``http(s)://URL``, ``uci:CMD``, ``builtin:NAME?opts``.
A Python user may also pass an object with ``answer(state) -> dict`` (an
:class:`enoch.agents.Agent`) or a plain callable ``state -> dict | str``.

The fast path: building the state JSON each ply and having the agent parse the whole
``position_history`` back costs far more than the rules themselves (O(plies) per ply). An
in-process agent may define ``answer_position(position, **fields)`` (it gets a *copy* of the
live position, its key history loaded) and skip JSON altogether; enoch's own
:class:`~enoch.agents.simple.BuiltinAgent` subclasses all do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from enoch.agents.simple import BuiltinAgent
from enoch.arena.transport import Limits, Transport, make_transport
from enoch.errors import AgentError, InputError
from enoch.protocol import make_state
from enoch.rules import Move, Position, move_uci

Raw = str | dict[str, Any] | int


@dataclass
class Turn:
    """What the side to move is asked. ``state()`` builds (once) the exact protocol state."""

    position: Position  # the live position: players must not change it
    legal: list[Move]
    history: Callable[[], list[str]]
    fields: dict[str, Any]  # optional state fields: draw_offer, last_error, clock, ...
    timeout: float | None  # seconds this answer may take (transport deadline)
    start_fen: str
    moves: list[Move]  # every move since start_fen (for UCI's ``position ... moves``)
    clock: dict[str, float] | None = None  # wtime/btime/winc/binc/movestogo for UCI (seconds)
    movetime: float | None = None
    _state: dict[str, Any] | None = field(default=None, repr=False)

    def state(self) -> dict[str, Any]:
        if self._state is None:
            self._state = make_state(self.position, self.history(), **self.fields)
        return self._state


class Player:
    """One side of a game. ``ask`` returns the raw answer or raises ``AgentError``
    (a :class:`~enoch.arena.transport.TransportError` names its forfeit)."""

    name: str = "player"
    needs_state: bool = True  # False: the referee need not build history strings for it
    transport: Transport | None = None

    def ask(self, turn: Turn) -> Raw:
        raise NotImplementedError

    def start(self) -> None:
        """Get ready before the game's clocks run (start a process, a UCI handshake).
        Failures here are not raised: the first ``ask`` reports them as the agent's crash."""
        if self.transport is not None:
            self.transport.start()

    def stderr(self) -> str:
        """stderr the agent wrote during the last ``ask`` (for the event log)."""
        return self.transport.last_stderr if self.transport is not None else ""

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class TransportPlayer(Player):
    """``exec:``, ``jsonl:`` and ``http(s):`` agents: the state JSON out, raw text back."""

    def __init__(self, name: str, transport: Transport) -> None:
        self.name = name
        self.transport = transport

    def ask(self, turn: Turn) -> Raw:
        assert self.transport is not None
        return self.transport.request(turn.state(), turn.timeout)


class ObjectPlayer(Player):
    """A Python agent: ``answer(state) -> dict`` (or ``answer_position`` as a fast path)."""

    def __init__(self, name: str, agent: Any) -> None:
        self.name = name
        self.agent = agent
        self._fast = getattr(agent, "answer_position", None)
        self.needs_state = self._fast is None
        # enoch's own agents accept the referee's legal moves instead of generating them again.
        self._hand_legal = isinstance(agent, BuiltinAgent)

    def ask(self, turn: Turn) -> Raw:
        if self._fast is not None:
            if self._hand_legal:
                result: Raw = self._fast(
                    turn.position.copy(), legal_moves=list(turn.legal), **turn.fields
                )
            else:
                result = self._fast(turn.position.copy(), **turn.fields)
            return result
        answer: Raw = self.agent.answer(turn.state())
        return answer

    def close(self) -> None:
        close = getattr(self.agent, "close", None)
        if close is not None:
            close()


class CallablePlayer(Player):
    """A plain function ``state -> dict | str``."""

    def __init__(self, name: str, fn: Callable[[dict[str, Any]], Any]) -> None:
        self.name = name
        self.fn = fn

    def ask(self, turn: Turn) -> Raw:
        result: Raw = self.fn(turn.state())
        return result


def make_player(
    agent: Any,
    *,
    name: str | None = None,
    limits: Limits = Limits(),  # noqa: B008
) -> Player:
    """A player from a name (``exec:``, ``jsonl:``, ``http(s)://``, ``uci:``, ``builtin:``),
    an agent object, a callable, or a :class:`Player` (returned as is)."""
    if isinstance(agent, Player):
        if name:
            agent.name = name
        return agent
    if isinstance(agent, str):
        spec = agent
        label = name or spec
        if spec.startswith("builtin:"):
            from enoch.agents.registry import make_builtin

            return ObjectPlayer(label, make_builtin(spec))
        if spec.startswith("uci:"):
            from enoch.arena.uci import UciPlayer, parse_uci_spec

            cmd, options = parse_uci_spec(spec)
            return UciPlayer(label, cmd, limits, options)
        if spec.startswith(("exec:", "jsonl:", "http://", "https://")):
            return TransportPlayer(label, make_transport(spec, limits))
        raise InputError(
            f"unknown agent {spec!r}: expected exec:CMD, jsonl:CMD, http(s)://URL, uci:CMD "
            "or builtin:NAME"
        )
    if hasattr(agent, "answer") or hasattr(agent, "answer_position"):
        label = name or getattr(agent, "name", None) or type(agent).__name__
        return ObjectPlayer(str(label), agent)
    if callable(agent):
        return CallablePlayer(str(name or getattr(agent, "__name__", "callable")), agent)
    raise AgentError(f"cannot make a player from {agent!r}")


def uci_moves(moves: list[Move]) -> list[str]:
    return [move_uci(m) for m in moves]


__all__ = [
    "CallablePlayer",
    "ObjectPlayer",
    "Player",
    "TransportPlayer",
    "Turn",
    "make_player",
]
