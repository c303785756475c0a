"""Players: every kind of agent, for every game, behind one small interface.

The referee hands a :class:`Turn` to :meth:`Player.ask` and gets back the raw answer: text
(from a program, exactly as it was written), a JSON value (from a Python agent), or a game's
native action (from a trusted in-process fast path). It never trusts any of them: the answer
is decoded (:mod:`enoch.arena.decode`) and judged by the game.

Names: ``exec:CMD``, ``jsonl:CMD``, ``http(s)://URL`` (the transports, the same for every game),
``builtin:NAME?opts`` (the game's own built-in agents: ``builtin:random`` is a chess agent in a
chess game and an Enochian one in an Enochian game), ``human`` (a person at the terminal), and
the prefixes a game adds (chess: ``uci:CMD``). A Python caller may also pass an object with
``answer(state) -> dict`` or a plain callable ``state -> dict | str``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from enoch.arena.transport import Limits, Transport, make_transport
from enoch.errors import AgentError, InputError, quote

if TYPE_CHECKING:
    from enoch.game.api import Game, State

Raw = Any  # text, a JSON value, or a native action
TRANSPORTS = ("exec:", "jsonl:", "http://", "https://")
HUMAN = "human"
LLM = "llm:"  # a chat-completions endpoint (enoch.arena.llm), for every game


@dataclass(slots=True)
class Turn:
    """What the seat to move is asked. :meth:`view` builds (once) the exact protocol state."""

    state: State  # the live game state: players must not change it
    seat: int
    fields: dict[str, Any]  # the referee's optional state fields: last_error, clock, ...
    timeout: float | None  # seconds this answer may take (transport deadline)
    remaining: Sequence[float] | None = None  # every seat's clock, if clocked (seconds)
    increment: float = 0.0
    moves_to_go: int = 0
    movetime: float | None = None
    _view: dict[str, Any] | None = field(default=None, repr=False)

    def view(self) -> dict[str, Any]:
        if self._view is None:
            self._view = self.state.to_json(self.seat, self.fields)
        return self._view


class Player:
    """One seat's agent. ``ask`` returns the raw answer or raises ``AgentError``
    (a :class:`~enoch.arena.transport.TransportError` names its forfeit)."""

    name: str = "player"
    #: False: a person, not held to the time limits
    timed: bool = True
    transport: Transport | None = None

    def ask(self, turn: Turn) -> Raw:
        raise NotImplementedError

    def start(self) -> None:
        """Get ready before the clocks run (start a process, a UCI handshake). Failures here
        are not raised: the first ``ask`` reports them as the agent's crash."""
        if self.transport is not None:
            self.transport.start()

    def stderr(self) -> str:
        """stderr the agent wrote during the last ``ask`` (for the event log)."""
        return self.transport.last_stderr if self.transport is not None else ""

    @property
    def pgids(self) -> list[int]:
        """Process groups this player started (tests assert none survives)."""
        return list(self.transport.pgids) if self.transport is not None else []

    def usage(self) -> dict[str, Any] | None:
        """What the player counts itself (an ``llm:`` agent: HTTP ``requests``, the tokens
        the endpoint reported, their ``cost``), since it was made; None: the referee's own
        count of answers asked is the ``requests`` (see the results line's ``usage``)."""
        return None

    def detail(self) -> dict[str, Any] | None:
        """Extra keys for the event log's ``answer`` line of the last ``ask`` (an ``llm:``
        agent: the model's whole text and reasoning), or None."""
        return None

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
        return self.transport.request(turn.view(), turn.timeout)


class ObjectPlayer(Player):
    """A Python agent: ``answer(state) -> dict``."""

    def __init__(self, name: str, agent: Any) -> None:
        self.name = name
        self.agent = agent
        self.timed = not getattr(agent, "untimed", False)

    def ask(self, turn: Turn) -> Raw:
        return self.agent.answer(turn.view())

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
        return self.fn(turn.view())


def parse_builtin(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``builtin:NAME?a=1&b=2`` into the name and its options."""
    body = spec[len("builtin:") :] if spec.startswith("builtin:") else spec
    name, _, query = body.partition("?")
    if not name:
        raise InputError("builtin agent name is empty (expected e.g. builtin:random)")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise InputError(
            f"bad options {query[:40]!r} for builtin:{name} (expected a=1&b=2)"
        ) from None
    return name, dict(pairs)


def agent_help(game: Game) -> str:
    extra = "".join(f", {p}CMD" for p in game.prefixes)
    return f"builtin:NAME, human, exec:CMD, jsonl:CMD, http(s)://URL, llm:MODEL?opts{extra}"


def check_agent(spec: str, game: Game, *, allow_insecure: bool = False) -> None:
    """Refuse now (InputError) an agent name that can never make a player in ``game``,
    without starting anything."""
    spec = spec.strip()
    if spec == HUMAN:
        return
    if spec.startswith(LLM):
        from enoch.arena.llm import check_spec

        check_spec(spec, game, allow_insecure=allow_insecure)
        return
    if spec.startswith("builtin:"):
        name, _ = parse_builtin(spec)
        if name not in game.builtins:
            known = ", ".join(sorted(game.builtins))
            raise InputError(
                f"unknown agent builtin:{name[:40]}{'...' if len(name) > 40 else ''} for "
                f"{game.name} (its built-ins: {known})"
            )
        return
    if spec.startswith(TRANSPORTS):
        if spec.startswith(("exec:", "jsonl:")) and not spec.partition(":")[2].strip():
            raise InputError(f"agent {spec!r} has an empty command")
        return
    if spec.startswith(game.prefixes):
        game.check_prefixed(spec)
        return
    raise InputError(f"unknown agent {quote(spec)} for {game.name}: expected {agent_help(game)}")


def make_player(
    agent: Any,
    game: Game | None = None,
    *,
    name: str | None = None,
    limits: Limits = Limits(),  # noqa: B008
) -> Player:
    """A player from a name, an agent object, a callable, or a :class:`Player` (returned as
    is). ``game`` (default: chess) scopes ``builtin:`` names and prefixes such as ``uci:``."""
    if isinstance(agent, Player):
        if name:
            agent.name = name
        return agent
    if game is None:
        from enoch.game.registry import find_game

        game = find_game("chess")
    if isinstance(agent, str):
        spec = agent.strip()
        label = name or spec
        if spec.startswith(LLM):
            from enoch.arena.llm import make_llm_player

            return make_llm_player(spec, label, game, limits)
        check_agent(spec, game)
        if spec == HUMAN:
            return ObjectPlayer(label, game.human())
        if spec.startswith("builtin:"):
            builtin, options = parse_builtin(spec)
            obj = game.make_builtin(builtin, options)
            return game.builtin_player(label, obj) or ObjectPlayer(label, obj)
        if spec.startswith(TRANSPORTS):
            return TransportPlayer(label, make_transport(spec, limits))
        player: Player = game.prefixed_player(spec, label, limits)
        return player
    label = str(name or getattr(agent, "name", None) or type(agent).__name__)
    native = game.builtin_player(label, agent)  # the game's fast path, if the agent has it
    if native is not None:
        return native  # type: ignore[no-any-return]
    if hasattr(agent, "answer"):
        return ObjectPlayer(label, agent)
    if callable(agent):
        return CallablePlayer(str(name or getattr(agent, "__name__", "callable")), agent)
    raise AgentError(f"cannot make a player from {agent!r}")


__all__ = [
    "HUMAN",
    "LLM",
    "TRANSPORTS",
    "CallablePlayer",
    "ObjectPlayer",
    "Player",
    "TransportPlayer",
    "Turn",
    "check_agent",
    "make_player",
    "parse_builtin",
]
