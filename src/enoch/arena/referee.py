"""The referee: one loop for every game, every kind of agent, every way a game can end.

It sends the seat to move its state, decodes and judges every answer, applies it, and ends the
game by the game's rules or by a forfeit. What belongs to a game's rules (which answers are
legal, what a draw offer does, when a claim is right) is the game's (:mod:`enoch.game.api`);
what belongs to refereeing is here, the same for chess and Enochian:

- time: ``movetime`` per answer (plus ``grace`` for process start and transport), or game
  clocks (``tc``) per seat, or else ``timeout`` per answer, so that a hung agent cannot hang
  a match; a person at the terminal is not timed;
- answers: text is decoded strictly (:mod:`enoch.arena.decode`); an answer the game refuses
  as ``invalid_answer`` or ``illegal_move`` is forgiven ``retries`` times per turn (the
  reason goes back in ``last_error``), then forfeits; a ``rule`` refusal (a wrong draw claim)
  is always answered again, and the game's ``rule_refusals``-th in one turn forfeits;
- forfeits: ``crash`` (the process died, an HTTP error, an in-process agent raised),
  ``timeout``, ``invalid_answer`` (not JSON, not the schema, out of step, or larger than the
  answer limit: the reason says which) and ``illegal_move``; the seat's team loses (the game
  may soften that: FIDE 6.9);
- records: a results line (:class:`GameResult`), and an event log whose every line follows
  ``docs/schema/events.schema.json``.

The loop keeps the per-ply cost near the rules' own: the state JSON is built only for players
or logs that read it, and in-process agents may answer with the game's native actions.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from enoch._numbers import MAX_SECONDS
from enoch.arena.clock import Clock, TimeControl
from enoch.arena.decode import decode_answer
from enoch.arena.players import Player, Turn, make_player
from enoch.arena.transport import Limits, TransportError
from enoch.errors import AgentSetupError
from enoch.game.api import Game, Refusal, Start, State

DEFAULT_TIMEOUT = 60.0
# Forfeits a transport reports, by the termination they cause.
_TRANSPORT_TERMINATION = {
    "crash": "crash",
    "timeout": "timeout",
    "oversize": "invalid_answer",
    "invalid_answer": "invalid_answer",
    "abandoned": "abandoned",  # the endpoint of an llm: agent stayed down: nobody's fault
}

Log = Callable[[dict[str, Any]], None]


@dataclass
class GameConfig:
    """How a game is refereed (the same for every game)."""

    movetime: float | None = None  # per-answer limit, sent as ``move_time_limit``
    tc: TimeControl | None = None  # game clocks, sent as ``clock``
    timeout: float = DEFAULT_TIMEOUT
    grace: float = 0.1  # allowance over ``movetime`` for transport latency and process start
    lenient: bool = False  # decode and judge answers leniently
    retries: int = 0  # invalid or illegal answers forgiven per turn (the protocol: none)
    limits: Limits = field(default_factory=Limits)


@dataclass
class GameResult:
    """One finished game, as written to the results JSONL (see :meth:`to_json`)."""

    variant: str
    seats: list[str]  # the agent of each seat
    result: str  # in the game's words: "1-0", "actives win", ...
    termination: str
    reason: str
    winner: int | None  # the winning team, None for a draw (or an unfinished game)
    points: list[float]  # per seat: 1 win, 0.5 draw, 0 loss
    moves: list[str]
    times: list[float] = field(default_factory=list)  # seconds per move, in move order
    clocks: list[float] | None = None  # the mover's remaining time after each move
    time_control: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)  # the game's own fields
    seat_names: tuple[str, ...] = ()  # the game's names of the seats (white, black)
    record: str | None = None  # the game's text record, when the game makes it from the state
    seconds: float = 0.0
    #: per seat: requests, retries, illegal, invalid, prompt_tokens, completion_tokens,
    #: seconds, cost (see :class:`Usage`)
    usage: list[dict[str, Any]] | None = None

    @property
    def plies(self) -> int:
        return len(self.moves)

    # the two-seat names people and python-chess use
    @property
    def white(self) -> str:
        return self.seats[0]

    @white.setter
    def white(self, value: str) -> None:
        self.seats[0] = value

    @property
    def black(self) -> str:
        return self.seats[1]

    @black.setter
    def black(self, value: str) -> None:
        self.seats[1] = value

    @property
    def start_fen(self) -> str:
        return str(self.extras.get("start_fen", ""))

    @property
    def opening(self) -> str | None:
        return self.extras.get("opening")

    @property
    def book_plies(self) -> int:
        return int(self.extras.get("book_plies", 0))

    def to_json(self) -> dict[str, Any]:
        """The results line: the same fields for every game, then the game's own."""
        out: dict[str, Any] = {"variant": self.variant}
        for seat, label in enumerate(self.seat_names[: len(self.seats)]):
            out[label] = self.seats[seat]
        out.update(
            {
                "seats": list(self.seats),
                "result": self.result,
                "termination": self.termination,
                "reason": self.reason,
                "winner": self.winner,
                "points": self.points,
                "plies": self.plies,
                "moves": self.moves,
                "seconds": round(self.seconds, 3),
            }
        )
        if self.usage is not None:
            out["usage"] = self.usage
        for key, value in self.extras.items():
            out.setdefault(key, value)
        return out

    def to_dict(self) -> dict[str, Any]:
        """Everything (for passing between processes)."""
        return asdict(self)


@dataclass
class Usage:
    """One seat's accounting in one game, the same fields for every kind of agent:
    ``requests`` (answers asked; for an ``llm:`` agent its HTTP requests, failed ones
    included), ``retries`` (refused answers asked again), ``illegal`` and ``invalid`` (answers
    refused as illegal moves, or as not JSON / not the schema), the tokens an endpoint reported
    (null for agents that have none), ``seconds`` waiting for the agent, and ``cost`` (null
    without a price)."""

    requests: int = 0
    retries: int = 0
    illegal: int = 0
    invalid: int = 0
    seconds: float = 0.0

    def line(self, own: dict[str, Any] | None, before: dict[str, Any] | None) -> dict[str, Any]:
        """The results line's object; ``own`` and ``before`` are the player's counts now and
        at the start (a player object may play several games)."""
        out: dict[str, Any] = {
            "requests": self.requests,
            "retries": self.retries,
            "illegal": self.illegal,
            "invalid": self.invalid,
            "prompt_tokens": None,
            "completion_tokens": None,
            "seconds": round(self.seconds, 6),
            "cost": None,
        }
        if own is not None:
            before = before or {}
            for key in ("requests", "prompt_tokens", "completion_tokens", "cost"):
                now = own.get(key)
                if now is not None:
                    then = before.get(key) or 0
                    out[key] = round(now - then, 9) if isinstance(now, float) else now - then
        return out


class _Ended(Exception):
    """A forfeit: ``seat`` loses with ``termination``."""

    def __init__(self, seat: int, termination: str, reason: str) -> None:
        self.seat = seat
        self.termination = termination
        self.reason = reason


class Referee:
    """One game between players. Use :func:`play_game` unless you need the pieces."""

    def __init__(
        self,
        state: State,
        players: Sequence[Player],
        *,
        config: GameConfig | None = None,
        log: Log | None = None,
        on_move: Callable[[Referee, dict[str, Any]], None] | None = None,
    ) -> None:
        if len(players) != state.seats:
            raise ValueError(f"{state.game.name} needs {state.seats} players, not {len(players)}")
        self.state = state
        self.game: Game = state.game
        self.players = list(players)
        self.config = config or GameConfig()
        self.log = log
        self.on_move = on_move
        self.times: list[float] = []
        self.clock = Clock(self.config.tc, state.seats) if self.config.tc else None
        self.clocks: list[float] | None = [] if self.clock else None
        self.last: dict[str, Any] = {}
        self.usage = [Usage() for _ in self.players]

    # ------------------------------------------------------------------ helpers
    def _emit(self, event: str, **data: Any) -> None:
        if self.log is not None:
            self.log({"event": event, "ply": self.state.ply, **data})

    def _names(self) -> list[str]:
        return [p.name for p in self.players]

    def _limit(self, seat: int) -> float:
        """The seconds this turn may take by the rules (a turn may hold several answers)."""
        cfg = self.config
        if self.clock is not None:
            return self.clock.remaining[seat]
        if cfg.movetime is not None:
            return cfg.movetime + cfg.grace
        return cfg.timeout

    # ------------------------------------------------------------------ the game
    def play(self) -> GameResult:
        state = self.state
        start = time.perf_counter()
        for player in self.players:
            player.start()
        counted = [p.usage() for p in self.players]
        self._emit(
            "start",
            variant=self.game.name,
            seats=self._names(),
            book=state.moves(),
            **state.summary(),
        )
        try:
            while not state.is_terminal():
                self._turn()
        except _Ended as end:
            state.forfeit(end.seat, end.termination, end.reason)
        outcome = state.outcome()
        assert outcome is not None
        names = self._names()
        result = GameResult(
            variant=self.game.name,
            seats=names,
            result=state.result_text(),
            termination=outcome.termination,
            reason=outcome.reason,
            winner=None if outcome.unfinished else outcome.winner,
            points=state.returns(),
            moves=state.moves(),
            times=self.times,
            clocks=self.clocks,
            time_control=str(self.config.tc) if self.config.tc else None,
            extras=state.summary(),
            seat_names=tuple(self.game.seat_names),
            seconds=time.perf_counter() - start,
        )
        result.usage = [
            u.line(p.usage(), before)
            for u, p, before in zip(self.usage, self.players, counted, strict=True)
        ]
        result.record = state.record(names, result)
        self._emit(
            "end",
            result=result.result,
            termination=result.termination,
            reason=result.reason,
            winner=result.winner,
            points=result.points,
        )
        return result

    def _turn(self) -> None:
        state = self.state
        seat = state.current_seat()
        player = self.players[seat]
        cfg = self.config
        timed = player.timed
        rule_refusals = 0  # refusals the game's rules foresee (wrong claims) this turn
        failures = 0  # invalid or illegal answers this turn (for --retries)
        last_error: str | None = None
        spent = 0.0
        start_ply = state.ply
        while True:
            fields: dict[str, Any] = {}
            if last_error is not None:
                fields["last_error"] = last_error
            clock = self.clock
            if clock is not None:
                fields["clock"] = state.clock_field(
                    clock.remaining, clock.tc.increment, clock.moves_to_go(seat)
                )
            if cfg.movetime is not None and timed:
                fields["move_time_limit"] = cfg.movetime
            allowed = self._limit(seat)
            turn = Turn(
                state=state,
                seat=seat,
                fields=fields,
                # at most MAX_SECONDS a wait: clocks with increments grow past what the
                # operating system's timers take (a flag the agent did not raise)
                timeout=min(max(allowed - spent, 0.0) + 0.001, MAX_SECONDS) if timed else None,
                remaining=clock.remaining if clock is not None else None,
                increment=clock.tc.increment if clock is not None else 0.0,
                moves_to_go=clock.moves_to_go(seat) if clock is not None else 0,
                movetime=cfg.movetime,
            )
            if self.log is not None:
                self._emit("state", player=seat, state=turn.view())
            usage = self.usage[seat]
            usage.requests += 1
            t0 = time.perf_counter()
            try:
                raw = player.ask(turn)
            except TransportError as exc:
                elapsed = time.perf_counter() - t0
                spent += elapsed
                usage.seconds += elapsed
                self._emit(
                    "answer",
                    player=seat,
                    error=str(exc),
                    kind=exc.kind,
                    elapsed=round(spent, 6),
                    stderr=exc.stderr or player.stderr(),
                    **(player.detail() or {}),
                )
                termination = _TRANSPORT_TERMINATION.get(exc.kind, "crash")
                if termination == "invalid_answer":
                    usage.invalid += 1
                    if failures < cfg.retries:
                        failures += 1
                        usage.retries += 1
                        last_error = str(exc)
                        self._emit("decision", player=seat, decision="retry", reason=str(exc))
                        continue
                raise _Ended(seat, termination, str(exc)) from None
            except AgentSetupError:
                raise  # the agent cannot play at all as configured: the run stops (exit 2)
            except Exception as exc:  # an in-process agent raised: that is its crash
                elapsed = time.perf_counter() - t0
                spent += elapsed
                usage.seconds += elapsed
                self._emit("answer", player=seat, error=repr(exc)[:500], kind="crash")
                raise _Ended(seat, "crash", f"agent raised {type(exc).__name__}: {exc}") from None
            elapsed = time.perf_counter() - t0
            spent += elapsed
            usage.seconds += elapsed
            if self.log is not None:
                self._emit(
                    "answer",
                    player=seat,
                    raw=state.action_text(raw) if type(raw) is int else raw,
                    elapsed=round(elapsed, 6),
                    stderr=player.stderr(),
                    **(player.detail() or {}),
                )
            if timed and spent > allowed:
                raise _Ended(
                    seat, "timeout", f"answered after {spent:.3f} s (limit {allowed:.3f} s)"
                )
            # ---- decode and judge
            answer = (
                decode_answer(raw, lenient=cfg.lenient) if isinstance(raw, str | bytes) else raw
            )
            verdict = (
                answer if isinstance(answer, Refusal) else state.judge(answer, lenient=cfg.lenient)
            )
            if isinstance(verdict, Refusal):
                if verdict.kind == "rule":
                    rule_refusals += 1
                    self._emit(
                        "decision", player=seat, decision=verdict.decision, reason=verdict.reason
                    )
                    if rule_refusals >= self.game.rule_refusals:
                        usage.invalid += 1
                        raise _Ended(seat, "invalid_answer", verdict.forfeit or verdict.reason)
                    usage.retries += 1
                    last_error = verdict.reason
                    continue
                if verdict.kind == "illegal_move":
                    usage.illegal += 1
                else:
                    usage.invalid += 1
                if failures < cfg.retries:
                    failures += 1
                    usage.retries += 1
                    last_error = verdict.reason
                    self._emit("decision", player=seat, decision="retry", reason=verdict.reason)
                    continue
                raise _Ended(seat, verdict.kind, verdict.reason)
            # ---- apply
            if self.log is not None:
                for note in state.notes(verdict):
                    self._emit("decision", player=seat, decision=note)
                self._emit(
                    "decision",
                    player=seat,
                    decision=state.action_kind(verdict),
                    action=state.action_text(verdict),
                )
            state.apply(verdict)
            moved = state.ply > start_ply
            if moved or state.is_terminal() or state.current_seat() != seat:
                if self.clock is not None and timed:
                    # ``spent <= allowed`` was checked above: the flag cannot fall here
                    self.clock.spend(seat, spent, move=moved)
                    if moved:
                        self.clocks.append(self.clock.remaining[seat])  # type: ignore[union-attr]
                if moved:
                    self.times.append(spent)
                    if self.on_move is not None:
                        self.on_move(self, {"player": seat, "raw": raw, "elapsed": spent})
                return
            # an in-turn action (a draw offer): the same seat answers again
            last_error = None


def play_game(
    *agents: Any,
    variant: str | Game = "chess",
    options: Mapping[str, Any] | None = None,
    start_fen: str | None = None,
    book_moves: Sequence[str] = (),
    start: Start | None = None,
    state: State | None = None,
    max_plies: int | None = None,
    config: GameConfig | None = None,
    log: Log | None = None,
    on_move: Callable[[Referee, dict[str, Any]], None] | None = None,
    close: bool = True,
) -> GameResult:
    """Play one game of ``variant`` between ``agents``, one per seat (names, agent objects,
    callables or :class:`~enoch.arena.players.Player` objects), with the game's ``options``.
    ``start_fen`` and ``book_moves`` are the options ``fen`` and ``moves`` of games that have
    them (chess); any game may start from ``start`` (an opening, an array) or a ready
    ``state``. Players built here are closed at the end (every process group killed)
    even if the game raises."""
    from enoch.errors import InputError
    from enoch.game.registry import find_game

    game = find_game(variant) if isinstance(variant, str) else variant
    cfg = config or GameConfig()
    if state is None:
        values = dict(options or {})
        if start_fen is not None:
            values["fen"] = start_fen
        if book_moves:
            values["moves"] = " ".join(book_moves)
        state = game.new_state(game.setup(values, max_plies=max_plies), start)
    if len(agents) != state.seats:
        raise InputError(
            f"{game.name} with these options has {state.seats} seats: give {state.seats} "
            f"agents, not {len(agents)}"
        )
    players: list[Player] = []
    try:
        for agent in agents:
            players.append(make_player(agent, game, limits=cfg.limits))
        referee = Referee(state, players, config=cfg, log=log, on_move=on_move)
        return referee.play()
    finally:
        if close:
            for p in players:
                # closing one agent must not stop closing the other
                with contextlib.suppress(Exception):
                    p.close()


__all__ = ["DEFAULT_TIMEOUT", "GameConfig", "GameResult", "Referee", "Usage", "play_game"]
