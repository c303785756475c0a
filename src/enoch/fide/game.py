"""FIDE chess as a game of the arena: the rules core and the JSON protocol behind the game API.

The referee is generic (:mod:`enoch.arena.referee`); what is chess about a turn lives here, as
actions and refusals of :class:`ChessState`:

- automatic endings after each move, in python-chess's order: checkmate, dead position,
  stalemate, 75-move rule, fivefold repetition (so checkmate on the 75th move wins);
- a draw claim is checked against the position before the claimant moves (threefold: the
  current position has occurred three times, this one included; fifty moves: the halfmove
  clock is at least 100). A valid claim is an action that ends the game; a wrong one is a
  ``rule`` refusal, sent back as ``last_error``, and a second in one turn forfeits;
- a draw offer is an action after which the same side moves (its state says ``draw_offer``
  with its own colour); the opponent then sees the offerer's colour and accepts by offering
  too, while any other answer declines and the offer lapses. A second offer in one turn is a
  ``rule`` refusal;
- a flag falling against a side whose opponent cannot mate by any legal sequence is a draw
  (FIDE 6.9).

The details, with the reasons, are in ``docs/protocol.md``. Seats are colours: 0 white, 1 black.
The state keeps the per-ply cost near the rules' own: one legal-move generation per ply serves
the ending test, the judge and the in-process fast path, and the position history (FEN strings
for the protocol's ``position_history``) is built only when an agent or a log asks for a state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from enoch.errors import IllegalMoveError, InputError, ProtocolError
from enoch.fide.agents import BUILTINS
from enoch.game.api import Game, Outcome, Refusal, Setup, Start, State
from enoch.game.options import OptionSpec
from enoch.protocol import answer_move, make_state, parse_answer
from enoch.rules import STARTING_FEN, Move, Position, move_uci

COLOURS = ("white", "black")
# Actions that are not moves (moves are the rules core's non-negative ints).
OFFER_DRAW = -1
CLAIM_THREEFOLD = -2
CLAIM_FIFTY = -3
RESIGN = -4
_ACTION_NAMES = {
    OFFER_DRAW: "offer_draw",
    CLAIM_THREEFOLD: "claim_draw threefold_repetition",
    CLAIM_FIFTY: "claim_draw fifty_move_rule",
    RESIGN: "resign",
}
_FORFEIT = "forfeit"  # undo-stack tag of a forfeit

#: the chess terminations (the referee's own are in enoch.game.api)
TERMINATIONS = (
    "checkmate",
    "stalemate",
    "insufficient_material",
    "fivefold_repetition",
    "seventyfive_moves",
    "threefold_repetition",
    "fifty_moves",
)


def automatic_ending(pos: Position, n_legal: int) -> Outcome | None:
    """The ending FIDE imposes without a claim, in python-chess's order, or None."""
    if not n_legal and pos.is_check():
        winner = pos.turn ^ 1
        return Outcome("checkmate", winner, f"{COLOURS[winner]} mates")
    if pos.is_insufficient_material():
        return Outcome("insufficient_material", None, "dead position: neither side can mate")
    if not n_legal:
        return Outcome("stalemate", None, f"{COLOURS[pos.turn]} is stalemated")
    if pos.halfmove >= 150:
        return Outcome(
            "seventyfive_moves", None, "75 moves by each side without a pawn move or capture"
        )
    if pos.halfmove >= 8 and pos.repetition_count() >= 5:
        return Outcome("fivefold_repetition", None, "the same position occurred five times")
    return None


class ChessState(State):
    """A chess game from a start position and book moves. Actions: moves (ints of
    :mod:`enoch.rules`) and :data:`OFFER_DRAW`, :data:`CLAIM_THREEFOLD`, :data:`CLAIM_FIFTY`,
    :data:`RESIGN`."""

    seats = 2

    def __init__(
        self,
        game: ChessGame,
        start_fen: str = STARTING_FEN,
        book: Sequence[str] = (),
        opening: str | None = None,
        max_plies: int | None = None,
    ) -> None:
        self.game = game
        self.start_fen = start_fen
        self.opening = opening
        self.max_plies = max_plies
        try:
            self.pos = Position.from_fen(start_fen)
        except InputError as exc:
            raise InputError(f"start position: {exc}") from None
        self.move_list: list[Move] = []
        self._replay: Position | None = None  # catches up with the game for the history
        self._history: list[str] = []
        self._legal: list[Move] | None = None
        self._auto: Outcome | None = None
        self._auto_ply = -1
        self._ended: Outcome | None = None  # an ending by an action or a forfeit
        self.offer_from: int | None = None  # the side whose draw offer stands
        self.offered_now = False  # the side to move offered a draw this turn
        self._stack: list[tuple[Any, ...]] = []
        for text in book:
            try:
                move = self.pos.parse_uci(text)
            except (IllegalMoveError, InputError) as exc:
                raise InputError(f"opening {opening or ''}: {exc}") from None
            self._push_move(move)
        self.book_plies = len(self.move_list)

    # ------------------------------------------------------------------ queries
    @property
    def ply(self) -> int:
        return len(self.move_list)

    def team_of(self, seat: int) -> int:
        return seat

    def current_seat(self) -> int:
        return self.pos.turn

    def legal_moves(self) -> list[Move]:
        """The legal moves (cached for the ply; callers must not change the list)."""
        if self._legal is None:
            self._legal = self.pos.legal_moves()
        return self._legal

    def legal_actions(self) -> list[Any]:
        if self.outcome() is not None:
            return []
        acts: list[Any] = list(self.legal_moves())
        if not self.offered_now:
            acts.append(OFFER_DRAW)
        if self.pos.repetition_count() >= 3:
            acts.append(CLAIM_THREEFOLD)
        if self.pos.halfmove >= 100:
            acts.append(CLAIM_FIFTY)
        return acts

    def outcome(self) -> Outcome | None:
        if self._ended is not None:
            return self._ended
        if self._auto_ply != len(self.move_list):
            self._auto = automatic_ending(self.pos, len(self.legal_moves()))
            if (
                self._auto is None
                and self.max_plies is not None
                and len(self.move_list) >= self.max_plies
            ):
                self._auto = Outcome(
                    "move_limit", None, f"the referee's limit of {self.max_plies} plies"
                )
            self._auto_ply = len(self.move_list)
        return self._auto

    def history(self) -> list[str]:
        """``position_history``: the position before each move, oldest first."""
        if len(self._history) < len(self.move_list):
            if self._replay is None:
                self._replay = Position.from_fen(self.start_fen)
            replay = self._replay
            for move in self.move_list[len(self._history) :]:
                self._history.append(replay.position_fen())
                replay.make(move)
        return self._history[: len(self.move_list)]

    def moves(self) -> list[str]:
        return [move_uci(m) for m in self.move_list]

    def summary(self) -> dict[str, Any]:
        return {
            "start_fen": self.start_fen,
            "opening": self.opening,
            "book_plies": self.book_plies,
        }

    def action_text(self, action: Any) -> str:
        if isinstance(action, int) and action >= 0:
            return move_uci(action)
        return _ACTION_NAMES.get(action, str(action))

    def action_kind(self, action: Any) -> str:
        """The decision word of the event log."""
        if isinstance(action, int) and action >= 0:
            return "move"
        if action == OFFER_DRAW:
            return "draw_accepted" if self.offer_from == self.pos.turn ^ 1 else "draw_offered"
        return _ACTION_NAMES.get(action, str(action)).split()[0]

    def notes(self, action: Any) -> list[str]:
        """Decisions the referee logs before applying ``action``."""
        if isinstance(action, int) and action >= 0 and self.offer_from == self.pos.turn ^ 1:
            return ["offer_declined"]
        return []

    # ------------------------------------------------------------------ the agent's view
    def draw_offer_field(self) -> str | None:
        if self.offered_now:
            return COLOURS[self.pos.turn]
        if self.offer_from is not None:
            return COLOURS[self.offer_from]
        return None

    def to_json(self, seat: int, fields: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return make_state(
            self.pos, self.history(), draw_offer=self.draw_offer_field(), **(fields or {})
        )

    def views(self, seat: int, names: Sequence[str]) -> dict[str, str]:
        """For language models: ``fen``, ``ascii`` (White at the bottom), ``legal`` (every
        legal move in UCI and SAN), ``history`` (the game's moves in SAN, numbered)."""
        import chess

        board = chess.Board(self.start_fen)
        sans: list[str] = []
        want_history = "history" in names
        for move in self.moves():
            mv = chess.Move.from_uci(move)
            if want_history:
                sans.append(board.san(mv))
            board.push(mv)
        out: dict[str, str] = {}
        for name in names:
            if name == "fen":
                out[name] = self.pos.fen()
            elif name == "ascii":
                out[name] = _ascii(board)
            elif name == "legal":
                legal = [f"{m.uci()} ({board.san(m)})" for m in board.legal_moves]
                out[name] = ", ".join(legal) if legal else "(none)"
            elif name == "history":
                out[name] = _numbered(sans, chess.Board(self.start_fen)) or "(no moves yet)"
        return out

    def clock_field(self, remaining: Sequence[float], increment: float, moves_to_go: int) -> Any:
        out: dict[str, Any] = {
            "white": round(remaining[0], 3),
            "black": round(remaining[1], 3),
            "increment": increment,
        }
        if moves_to_go:
            out["moves_to_go"] = moves_to_go
        return out

    def judge(self, answer: Any, *, lenient: bool = False) -> Any:
        side = self.pos.turn
        if type(answer) is int:
            # a trusted in-process agent's move (or action): checked like any other
            if answer >= 0:
                legal = self._legal if self._legal is not None else self.legal_moves()
                if answer in legal:
                    return answer
                return Refusal(
                    "illegal_move", f"illegal move {move_uci(answer)}: not legal in this position"
                )
            if answer not in _ACTION_NAMES:
                return Refusal("invalid_answer", f"unknown action {answer}")
            if answer == RESIGN:
                return RESIGN
            if answer == OFFER_DRAW:
                return self._judge_offer()
            return self._judge_claim(
                "threefold_repetition" if answer == CLAIM_THREEFOLD else "fifty_move_rule", side
            )
        try:
            ans = parse_answer(answer, lenient=lenient)
        except ProtocolError as exc:
            return Refusal("invalid_answer", str(exc))
        if ans.kind == "move":
            try:
                return answer_move(self.pos, ans)
            except IllegalMoveError as exc:
                return Refusal("illegal_move", str(exc))
        if ans.kind == "resign":
            return RESIGN
        if ans.kind == "offer_draw":
            return self._judge_offer()
        return self._judge_claim(ans.reason or "", side)

    def _judge_offer(self) -> Any:
        if self.offered_now:
            return Refusal(
                "rule",
                "a draw offer was already made this turn; answer with a move",
                decision="offer_repeated",
            )
        return OFFER_DRAW

    def _judge_claim(self, reason: str, side: int) -> Any:
        if reason == "threefold_repetition":
            count = self.pos.repetition_count()
            if count >= 3:
                return CLAIM_THREEFOLD
            why = (
                "threefold repetition claim refused: the current position has occurred "
                f"{count} time{'s' if count != 1 else ''}, not 3"
            )
        elif self.pos.halfmove >= 100:
            return CLAIM_FIFTY
        else:
            why = (
                f"fifty-move claim refused: the halfmove clock is {self.pos.halfmove}, "
                "a claim needs at least 100"
            )
        return Refusal(
            "rule", why, decision="claim_refused", forfeit="a second incorrect claim: " + why
        )

    # ------------------------------------------------------------------ changes
    def _push_move(self, move: Move) -> None:
        self._stack.append(("move", self.offer_from, self.offered_now))
        side = self.pos.turn
        self.offer_from = side if self.offered_now else None
        self.offered_now = False
        self.move_list.append(move)
        self.pos.make(move)
        self._legal = None

    def apply(self, action: Any) -> None:
        if self._ended is not None or (
            (self._auto if self._auto_ply == len(self.move_list) else self.outcome()) is not None
        ):
            raise IllegalMoveError("the game is over")
        side = self.pos.turn
        if action >= 0:
            self._push_move(action)
            return
        self._stack.append(("action", self.offer_from, self.offered_now, self._ended))
        who = COLOURS[side]
        if action == OFFER_DRAW:
            if self.offer_from == side ^ 1:
                self._ended = Outcome(
                    "agreement", None, f"{who} accepts {COLOURS[side ^ 1]}'s draw offer"
                )
            else:
                self.offered_now = True
        elif action == RESIGN:
            self._ended = Outcome("resignation", side ^ 1, f"{who} resigns")
        elif action == CLAIM_THREEFOLD:
            count = self.pos.repetition_count()
            self._ended = Outcome(
                "threefold_repetition",
                None,
                f"{who} claims threefold repetition (the position occurred {count} times)",
            )
        elif action == CLAIM_FIFTY:
            self._ended = Outcome(
                "fifty_moves",
                None,
                f"{who} claims the fifty-move rule (halfmove clock {self.pos.halfmove})",
            )
        else:
            self._stack.pop()
            raise IllegalMoveError(f"unknown action {action}")

    def undo(self) -> None:
        entry = self._stack.pop()
        if entry[0] == "move":
            self.pos.unmake()
            self.move_list.pop()
            self._legal = None
            self._auto_ply = -1
            while len(self._history) > len(self.move_list):  # the replay follows the game back
                self._history.pop()
                assert self._replay is not None
                self._replay.unmake()
            self.offer_from, self.offered_now = entry[1], entry[2]
        else:
            self.offer_from, self.offered_now, self._ended = entry[1], entry[2], entry[3]

    def forfeit(self, seat: int, termination: str, reason: str) -> None:
        self._stack.append(("action", self.offer_from, self.offered_now, self._ended))
        who = COLOURS[seat]
        if termination == "abandoned":
            self._ended = Outcome("abandoned", None, reason, unfinished=True)
        elif termination == "timeout" and self.pos.has_insufficient_material(seat ^ 1):
            self._ended = Outcome(
                "timeout",
                None,
                f"{who} ran out of time, but {COLOURS[seat ^ 1]} cannot mate by any legal "
                "sequence of moves (FIDE 6.9): draw",
            )
        else:
            self._ended = Outcome(termination, seat ^ 1, f"{who} forfeits: {reason}")

    def result_text(self) -> str:
        out = self.outcome()
        if out is None or out.unfinished:
            return "*"
        return "1/2-1/2" if out.winner is None else ("1-0" if out.winner == 0 else "0-1")


def _ascii(board: Any) -> str:
    """The board as text, rank 8 on top, with file letters and rank numbers."""
    rows = str(board).splitlines()
    lines = [f"{8 - i} {row}" for i, row in enumerate(rows)]
    lines.append("  a b c d e f g h")
    lines.append("(uppercase: White, lowercase: Black, '.': empty)")
    return "\n".join(lines)


def _numbered(sans: Sequence[str], start: Any) -> str:
    """SAN moves numbered as in a score sheet (``1. e4 e5 2. Nf3``)."""
    number = start.fullmove_number
    black = start.turn is False
    parts: list[str] = []
    for san in sans:
        if not black:
            parts.append(f"{number}. {san}")
        else:
            parts.append(san if parts else f"{number}... {san}")
            number += 1
        black = not black
    return " ".join(parts)


class ChessGame(Game):
    """FIDE chess (2023 Laws): two seats, white and black."""

    name = "chess"
    title = "FIDE chess"
    record_format = "pgn"
    rule_refusals = 2
    seat_names = COLOURS
    options = (
        OptionSpec(
            "fen",
            "str",
            None,
            "start every game from this position (FEN, or startpos) instead of the openings",
        ),
        OptionSpec(
            "openings",
            "str",
            None,
            "openings file: the suite format, FEN/EPD lines or PGN (default: the shipped suite)",
        ),
        OptionSpec("moves", "str", None, "book moves (UCI, space separated) played first"),
    )
    builtins = BUILTINS
    prefixes = ("uci:",)
    view_names = ("fen", "ascii", "legal", "history")
    default_views = ("fen", "ascii", "legal", "history")

    def seats(self, setup: Setup) -> int:
        return 2

    def _fen(self, setup: Setup) -> str | None:
        fen = setup.options.get("fen")
        if fen is None:
            return None
        fen = fen.strip()
        return STARTING_FEN if fen == "startpos" else fen

    def new_state(self, setup: Setup, start: Start | None = None) -> ChessState:
        from enoch.openings import Opening

        if start is None and setup.options.get("openings") is not None:
            start = self.starts(setup)[0]  # one game (enoch play): the file's first opening
        if start is None:
            fen = self._fen(setup) or STARTING_FEN
            book = tuple((setup.options.get("moves") or "").split())
            opening = Opening("FEN" if self._fen(setup) else "start", fen, book)
        else:
            opening = start.data
        return ChessState(
            self,
            opening.start_fen,
            opening.moves,
            opening.name if start is not None else None,
            setup.max_plies,
        )

    def starts(self, setup: Setup, spec: str | None = None) -> list[Start]:
        from enoch.openings import Opening, default_suite, load_openings

        fen = self._fen(setup)
        path = spec or setup.options.get("openings")
        if fen is not None and path is not None:
            raise InputError("give a FEN or an openings file, not both")
        book = tuple((setup.options.get("moves") or "").split())
        if fen is not None or book:
            opening = Opening("FEN" if fen else "start", fen or STARTING_FEN, book)
            ChessState(self, opening.start_fen, opening.moves, opening.name)  # checks it now
            return [Start(opening.name, opening)]
        openings = load_openings(path) if path is not None else default_suite()
        return [Start(o.name, o) for o in openings]

    # ------------------------------------------------------------------ agents
    def builtin_player(self, label: str, agent: Any) -> Any:
        if getattr(agent, "answer_position", None) is None:
            return None
        from enoch.fide.players import PositionPlayer

        return PositionPlayer(label, agent)

    def prefixed_player(self, spec: str, label: str, limits: Any) -> Any:
        from enoch.fide.uci import UciPlayer, parse_uci_spec

        cmd, options = parse_uci_spec(spec)
        return UciPlayer(label, cmd, limits, options)

    def check_prefixed(self, spec: str) -> None:
        if not spec.partition(":")[2].strip():
            raise InputError(f"agent {spec!r} has an empty command")

    def human(self) -> Any:
        from enoch.fide.human import TerminalPlayer

        return TerminalPlayer()

    # ------------------------------------------------------------------ for models
    def rulebook(self) -> str:
        from importlib.resources import files

        return files("enoch.fide").joinpath("rulebook.md").read_text(encoding="utf-8")

    def answer_schema(self) -> dict[str, Any] | None:
        import json
        from importlib.resources import files

        text = files("enoch.protocol").joinpath("schema/answer.schema.json").read_text("utf-8")
        return dict(json.loads(text))

    # ------------------------------------------------------------------ records
    def record_text(self, result: Any, *, event: str, round_: str) -> str:
        from enoch.fide.records import pgn_text

        return pgn_text(result, event=event, round_=round_)

    def board(self, state: State, colour: bool) -> Any:
        from enoch.fide.render import board

        assert isinstance(state, ChessState)
        return board(state, colour)


__all__ = [
    "CLAIM_FIFTY",
    "CLAIM_THREEFOLD",
    "COLOURS",
    "OFFER_DRAW",
    "RESIGN",
    "TERMINATIONS",
    "ChessGame",
    "ChessState",
    "automatic_ending",
]
