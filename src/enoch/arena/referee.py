"""The referee: the "system" of ``spec/agent-protocol.md``.

It sends each side the state, checks every answer, applies it, and ends the game by the FIDE
rules and the decisions of DESIGN.md ("The agent protocol: decisions the spec leaves open"):

- automatic endings after each move, in python-chess's order: checkmate, dead position,
  stalemate, 75-move rule, fivefold repetition (so checkmate on the 75th move wins);
- draw claims checked against the position before the claimant moves (threefold: the current
  position has occurred three times; fifty moves: ``halfmove_clock >= 100``); a wrong claim is
  refused with ``last_error`` and the side answers again; a second wrong claim (or a repeated
  draw offer) in one turn forfeits;
- a draw offer stands beside a move: the offerer is asked again (``draw_offer`` = its own
  colour), the opponent sees ``draw_offer`` = offerer's colour and accepts with ``offer_draw``;
  any other answer declines and the offer lapses;
- forfeits (illegal move, invalid answer, crash, timeout, oversize answer) lose, except that a
  timeout against a side that cannot mate by any legal sequence is a draw (FIDE 6.9).

Players are the integers 0 (white) and 1 (black). The loop keeps the per-ply cost near the
rules' own: one legal-move generation per ply serves the ending test, the in-process fast path
and move validation; the state JSON is built only for players or logs that need it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from enoch.arena.clock import Clock, TimeControl
from enoch.arena.players import Player, Turn, make_player
from enoch.arena.transport import Limits, TransportError
from enoch.errors import IllegalMoveError, InputError, ProtocolError
from enoch.protocol import answer_move, parse_answer
from enoch.rules import STARTING_FEN, Move, Position, move_uci

COLOURS = ("white", "black")
TERMINATIONS = (
    "checkmate",
    "stalemate",
    "insufficient_material",
    "fivefold_repetition",
    "seventyfive_moves",
    "threefold_repetition",
    "fifty_moves",
    "agreement",
    "resignation",
    "illegal_move",
    "invalid_answer",
    "crash",
    "timeout",
)
# Forfeits a transport reports, by the termination they cause.
_TRANSPORT_TERMINATION = {
    "crash": "crash",
    "timeout": "timeout",
    "oversize": "invalid_answer",
    "invalid_answer": "invalid_answer",
}
DEFAULT_TIMEOUT = 60.0

Log = Callable[[dict[str, Any]], None]


@dataclass
class GameConfig:
    """How a game is run. Without ``movetime`` or ``tc`` each answer still has ``timeout``
    seconds: an external agent that hangs must not hang the match."""

    movetime: float | None = None  # per-answer limit, sent as ``move_time_limit``
    tc: TimeControl | None = None  # game clocks, sent as ``clock``
    timeout: float = DEFAULT_TIMEOUT
    grace: float = 0.1  # allowance over ``movetime`` for transport latency and process start
    lenient: bool = False  # accept what parse_answer(lenient=True) accepts
    retries: int = 0  # invalid or illegal answers forgiven per turn (spec: none)
    limits: Limits = field(default_factory=Limits)


@dataclass
class GameResult:
    """One finished game, as written to the results JSONL (see :meth:`to_json`)."""

    white: str
    black: str
    result: str
    termination: str
    reason: str
    winner: int | None
    moves: list[str]
    start_fen: str
    opening: str | None = None
    book_plies: int = 0
    times: list[float] = field(default_factory=list)  # seconds per agent move
    clocks: list[float] | None = None  # remaining time after each agent move, if clocked
    time_control: str | None = None

    @property
    def plies(self) -> int:
        return len(self.moves)

    def to_json(self) -> dict[str, Any]:
        return {
            "white": self.white,
            "black": self.black,
            "result": self.result,
            "termination": self.termination,
            "reason": self.reason,
            "plies": self.plies,
            "moves": self.moves,
            "start_fen": self.start_fen,
            "opening": self.opening,
        }

    def to_dict(self) -> dict[str, Any]:
        """Everything (for passing between processes)."""
        return asdict(self)


class _Ended(Exception):
    def __init__(self, termination: str, winner: int | None, reason: str) -> None:
        self.termination = termination
        self.winner = winner
        self.reason = reason


def automatic_ending(pos: Position, n_legal: int) -> tuple[str, int | None, str] | None:
    """The ending FIDE imposes without a claim, in python-chess's order, or None."""
    if not n_legal and pos.is_check():
        winner = pos.turn ^ 1
        return "checkmate", winner, f"{COLOURS[winner]} mates"
    if pos.is_insufficient_material():
        return "insufficient_material", None, "dead position: neither side can mate"
    if not n_legal:
        return "stalemate", None, f"{COLOURS[pos.turn]} is stalemated"
    if pos.halfmove >= 150:
        return "seventyfive_moves", None, "75 moves by each side without a pawn move or capture"
    if pos.halfmove >= 8 and pos.repetition_count() >= 5:
        return "fivefold_repetition", None, "the same position occurred five times"
    return None


def _result_text(winner: int | None) -> str:
    return "1/2-1/2" if winner is None else ("1-0" if winner == 0 else "0-1")


class Referee:
    """One game between two players. Use :func:`play_game` unless you need the pieces."""

    def __init__(
        self,
        white: Player,
        black: Player,
        *,
        start_fen: str = STARTING_FEN,
        book_moves: Sequence[str] = (),
        opening: str | None = None,
        config: GameConfig | None = None,
        log: Log | None = None,
        on_move: Callable[[Referee, dict[str, Any]], None] | None = None,
    ) -> None:
        self.players = (white, black)
        self.config = config or GameConfig()
        self.log = log
        self.on_move = on_move
        self.start_fen = start_fen
        self.opening = opening
        self.pos = Position.from_fen(start_fen)
        self.moves: list[Move] = []
        self.need_history = log is not None or white.needs_state or black.needs_state
        self.history: list[str] = []
        for text in book_moves:
            try:
                move = self.pos.parse_uci(text)
            except IllegalMoveError as exc:
                raise InputError(f"opening {opening or ''}: {exc}") from None
            self._make(move)
        self.book_plies = len(self.moves)
        self.times: list[float] = []
        self.clock = Clock(self.config.tc) if self.config.tc else None
        self.clocks: list[float] | None = [] if self.clock else None
        self.offer_from: int | None = None  # the player whose draw offer stands
        self.last: dict[str, Any] = {}

    # ------------------------------------------------------------------ helpers
    def _make(self, move: Move) -> None:
        if self.need_history:
            self.history.append(self.pos.position_fen())
        self.moves.append(move)
        self.pos.make(move)

    def _history(self) -> list[str]:
        if self.need_history:
            return self.history
        # Rebuilt on demand for a player that asked for a state unexpectedly.
        pos = Position.from_fen(self.start_fen)
        out = []
        for m in self.moves:
            out.append(pos.position_fen())
            pos.make(m)
        return out

    def _emit(self, event: str, **data: Any) -> None:
        if self.log is not None:
            self.log({"event": event, "ply": len(self.moves), **data})

    def _forfeit(self, side: int, termination: str, reason: str) -> _Ended:
        who = COLOURS[side]
        if termination == "timeout" and self.pos.has_insufficient_material(side ^ 1):
            return _Ended(
                "timeout",
                None,
                f"{who} ran out of time, but {COLOURS[side ^ 1]} cannot mate by any legal "
                "sequence of moves (FIDE 6.9): draw",
            )
        return _Ended(termination, side ^ 1, f"{who} forfeits: {reason}")

    # ------------------------------------------------------------------ the game
    def play(self) -> GameResult:
        for player in self.players:
            player.start()
        self._emit(
            "start",
            white=self.players[0].name,
            black=self.players[1].name,
            start_fen=self.start_fen,
            book=[move_uci(m) for m in self.moves],
            opening=self.opening,
        )
        try:
            while True:
                legal = self.pos.legal_moves()
                ending = automatic_ending(self.pos, len(legal))
                if ending is not None:
                    raise _Ended(*ending)
                self._turn(legal)
        except _Ended as end:
            termination, winner, reason = end.termination, end.winner, end.reason
        result = GameResult(
            white=self.players[0].name,
            black=self.players[1].name,
            result=_result_text(winner),
            termination=termination,
            reason=reason,
            winner=winner,
            moves=[move_uci(m) for m in self.moves],
            start_fen=self.start_fen,
            opening=self.opening,
            book_plies=self.book_plies,
            times=self.times,
            clocks=self.clocks,
            time_control=str(self.config.tc) if self.config.tc else None,
        )
        self._emit(
            "end", result=result.result, termination=termination, reason=reason, winner=winner
        )
        return result

    def _limit(self, side: int) -> float:
        """The seconds this turn may take by the rules (a turn may hold several answers)."""
        cfg = self.config
        if self.clock is not None:
            return self.clock.remaining[side]
        if cfg.movetime is not None:
            return cfg.movetime + cfg.grace
        return cfg.timeout

    def _turn(self, legal: list[Move]) -> None:
        pos = self.pos
        side = pos.turn
        player = self.players[side]
        cfg = self.config
        offered_now = False
        rejected = 0  # wrong claims and repeated offers this turn
        failures = 0  # invalid or illegal answers this turn (for --retries)
        last_error: str | None = None
        spent = 0.0
        while True:
            fields: dict[str, Any] = {}
            if offered_now:
                fields["draw_offer"] = COLOURS[side]
            elif self.offer_from is not None:
                fields["draw_offer"] = COLOURS[self.offer_from]
            if last_error is not None:
                fields["last_error"] = last_error
            if self.clock is not None:
                fields["clock"] = self.clock.state_field(side)
            if cfg.movetime is not None:
                fields["move_time_limit"] = cfg.movetime
            allowed = self._limit(side)
            deadline = max(allowed - spent, 0.0) + 0.001
            turn = Turn(
                position=pos,
                legal=legal,
                history=self._history,
                fields=fields,
                timeout=deadline,
                start_fen=self.start_fen,
                moves=self.moves,
                clock=self.clock.uci(side) if self.clock is not None else None,
                movetime=cfg.movetime,
            )
            if self.log is not None:
                self._emit("state", player=side, state=turn.state())
            t0 = time.perf_counter()
            try:
                raw = player.ask(turn)
            except TransportError as exc:
                spent += time.perf_counter() - t0
                self._emit(
                    "answer",
                    player=side,
                    error=str(exc),
                    kind=exc.kind,
                    elapsed=round(spent, 6),
                    stderr=exc.stderr or player.stderr(),
                )
                termination = _TRANSPORT_TERMINATION.get(exc.kind, "crash")
                if termination == "invalid_answer" and failures < cfg.retries:
                    failures += 1
                    last_error = str(exc)
                    continue
                raise self._forfeit(side, termination, str(exc)) from None
            except Exception as exc:  # an in-process agent raised: that is its crash
                spent += time.perf_counter() - t0
                self._emit("answer", player=side, error=repr(exc), kind="crash")
                raise self._forfeit(
                    side, "crash", f"agent raised {type(exc).__name__}: {exc}"
                ) from None
            elapsed = time.perf_counter() - t0
            spent += elapsed
            if self.log is not None:
                shown = move_uci(raw) if isinstance(raw, int) else raw
                self._emit(
                    "answer",
                    player=side,
                    raw=shown,
                    elapsed=round(elapsed, 6),
                    stderr=player.stderr(),
                )
            if spent > allowed:
                raise self._forfeit(
                    side, "timeout", f"answered after {spent:.3f} s (limit {allowed:.3f} s)"
                )
            # ---- judge the answer
            try:
                if isinstance(raw, int):
                    if raw not in legal:
                        raise IllegalMoveError(
                            f"illegal move {move_uci(raw)}: not legal in this position"
                        )
                    move: Move | None = raw
                    kind = "move"
                    ans = None
                else:
                    ans = parse_answer(raw, lenient=cfg.lenient)
                    kind = ans.kind
                    move = answer_move(pos, ans) if kind == "move" else None
            except ProtocolError as exc:
                if failures < cfg.retries:
                    failures += 1
                    last_error = str(exc)
                    self._emit("decision", player=side, decision="retry", reason=str(exc))
                    continue
                raise self._forfeit(side, "invalid_answer", str(exc)) from None
            except IllegalMoveError as exc:
                if failures < cfg.retries:
                    failures += 1
                    last_error = str(exc)
                    self._emit("decision", player=side, decision="retry", reason=str(exc))
                    continue
                raise self._forfeit(side, "illegal_move", str(exc)) from None

            if kind == "move":
                assert move is not None
                if self.offer_from is not None and self.offer_from != side:
                    self._emit("decision", player=side, decision="offer_declined")
                self.offer_from = side if offered_now else None
                if self.clock is not None:
                    if not self.clock.spend(side, spent):
                        raise self._forfeit(side, "timeout", "flag fell")
                    self.clocks.append(self.clock.remaining[side])  # type: ignore[union-attr]
                self.times.append(spent)
                if self.log is not None:
                    self._emit("decision", player=side, decision="move", move=move_uci(move))
                self._make(move)
                if self.on_move is not None:
                    self.on_move(self, {"player": side, "raw": raw, "elapsed": spent})
                return
            if kind == "resign":
                raise _Ended("resignation", side ^ 1, f"{COLOURS[side]} resigns")
            if kind == "offer_draw":
                if self.offer_from == side ^ 1:
                    raise _Ended(
                        "agreement",
                        None,
                        f"{COLOURS[side]} accepts {COLOURS[side ^ 1]}'s draw offer",
                    )
                if offered_now:
                    rejected += 1
                    reason = "a draw offer was already made this turn; answer with a move"
                    if rejected >= 2:
                        raise self._forfeit(side, "invalid_answer", reason)
                    last_error = reason
                    self._emit("decision", player=side, decision="offer_repeated")
                    continue
                offered_now = True
                last_error = None
                self._emit("decision", player=side, decision="draw_offered")
                continue
            # claim_draw
            assert ans is not None
            if ans.reason == "threefold_repetition":
                count = pos.repetition_count()
                if count >= 3:
                    raise _Ended(
                        "threefold_repetition",
                        None,
                        f"{COLOURS[side]} claims threefold repetition "
                        f"(the position occurred {count} times)",
                    )
                why = (
                    "threefold repetition claim refused: the current position has occurred "
                    f"{count} time{'s' if count != 1 else ''}, not 3"
                )
            else:
                if pos.halfmove >= 100:
                    raise _Ended(
                        "fifty_moves",
                        None,
                        f"{COLOURS[side]} claims the fifty-move rule "
                        f"(halfmove clock {pos.halfmove})",
                    )
                why = (
                    f"fifty-move claim refused: the halfmove clock is {pos.halfmove}, "
                    "a claim needs at least 100"
                )
            rejected += 1
            self._emit("decision", player=side, decision="claim_refused", reason=why)
            if rejected >= 2:
                raise self._forfeit(side, "invalid_answer", "a second incorrect claim: " + why)
            last_error = why


def play_game(
    white: Any,
    black: Any,
    *,
    start_fen: str = STARTING_FEN,
    book_moves: Sequence[str] = (),
    opening: str | None = None,
    config: GameConfig | None = None,
    log: Log | None = None,
    on_move: Callable[[Referee, dict[str, Any]], None] | None = None,
    close: bool = True,
) -> GameResult:
    """Play one game. ``white``/``black`` are agent names, agent objects, callables or
    :class:`~enoch.arena.players.Player` objects; players built here are closed at the end
    (every process group killed) even if the game raises."""
    cfg = config or GameConfig()
    players: list[Player] = []
    try:
        for agent in (white, black):
            players.append(make_player(agent, limits=cfg.limits))
        referee = Referee(
            players[0],
            players[1],
            start_fen=start_fen,
            book_moves=book_moves,
            opening=opening,
            config=cfg,
            log=log,
            on_move=on_move,
        )
        return referee.play()
    finally:
        if close:
            for p in players:
                # closing one agent must not stop closing the other
                with contextlib.suppress(Exception):
                    p.close()
