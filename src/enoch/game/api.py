"""The game API: what the arena may know of a game, and no more.

Why a separate layer. enoch referees two games that share nothing on the board (FIDE chess, two
seats; Enochian chess, two or four seats commanding four armies) and everything around it:
agents behind the same transports, clocks, retries, forfeits, schedules, ratings, records and
logs. Written twice, those parts drifted apart (one referee refused duplicate JSON keys, the
other did not). So the arena is written once against this small interface, in the shape
OpenSpiel gives its games:

- a :class:`Game` declares its name, its options (:class:`~enoch.game.options.OptionSpec`, the
  one place the CLI flags, JSON Schemas and web forms come from), how many seats a game has and
  which team each seat plays for, the starts a schedule rotates through (openings, arrays), the
  built-in agents it has, and how a finished game is written as a record;
- a :class:`State` is the game being played: the current seat, the legal actions, ``apply`` and
  ``undo``, the terminal test and the returns per seat, the JSON view an agent is sent
  (``to_json``), and ``judge``, which turns a decoded answer into one of its actions or a
  :class:`Refusal` with the exact reason.

Everything a game's own rules say about a turn lives in the game: a FIDE draw offer is an action
after which the same seat moves, a wrong draw claim is a ``rule`` refusal, an Enochian exchange
offer is an action after which another seat answers. The referee only counts: answers, retries,
time, refusals per turn. Actions are whatever the game likes (chess and Enochian use ints); the
arena never looks inside one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from enoch.game.options import OptionSpec

#: Why a game ended, the same words for every game. The first group is each game's own (a game
#: may add more, e.g. Enochian ``kings_captured``); the second is the referee's.
FORFEITS = ("illegal_move", "invalid_answer", "crash", "timeout")
REFEREE_TERMINATIONS = ("resignation", "agreement", "move_limit", *FORFEITS)

#: Kinds of refusal. ``invalid_answer`` (not the schema) and ``illegal_move`` (a well formed
#: answer naming no legal action) are forgiven ``--retries`` times per turn, then forfeit with
#: that termination. ``rule`` is a refusal the game's rules themselves foresee (a FIDE draw
#: claim that is not valid): the seat is asked again with the reason, and the game's
#: ``rule_refusals`` limit per turn forfeits as ``invalid_answer``.
REFUSAL_KINDS = ("invalid_answer", "illegal_move", "rule")


@dataclass(frozen=True)
class Refusal:
    """An answer the game does not accept, and why (the reason is sent back as
    ``last_error``)."""

    kind: str
    reason: str
    #: the event log's decision word for a ``rule`` refusal (chess: ``claim_refused``)
    decision: str = "refused"
    #: the forfeit's reason when this refusal is the one too many (default: the reason)
    forfeit: str | None = None


@dataclass(frozen=True)
class Outcome:
    """How a game ended: a termination word, the winning team (None: a draw; ``abandoned``
    games have ``unfinished``), and a sentence for people."""

    termination: str
    winner: int | None
    reason: str
    unfinished: bool = False


@dataclass(frozen=True)
class Start:
    """One start of a schedule: a chess opening, an Enochian array. ``data`` is the game's."""

    name: str
    data: Any = None


@dataclass(frozen=True)
class Setup:
    """Everything a game needs to build its first state: its options (parsed, defaults filled)
    and the referee's move limit (``None``: the game's rules alone end it)."""

    options: Mapping[str, Any] = field(default_factory=dict)
    max_plies: int | None = None


class State(ABC):
    """A game in progress. Seats are ``0 .. seats-1``; teams are ``0 .. teams-1``."""

    game: Game
    #: the seats' count, fixed for the whole game
    seats: int

    # ------------------------------------------------------------------ the state machine
    @abstractmethod
    def current_seat(self) -> int:
        """The seat that must answer now (undefined once the game is over)."""

    @abstractmethod
    def legal_actions(self) -> Sequence[Any]:
        """The actions the current seat may take (board moves and the game's own actions)."""

    @abstractmethod
    def apply(self, action: Any) -> None:
        """Apply an action that :meth:`judge` returned or :meth:`legal_actions` lists."""

    @abstractmethod
    def undo(self) -> None:
        """Take back the last :meth:`apply` (or :meth:`forfeit`)."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""

    def is_terminal(self) -> bool:
        return self.outcome() is not None

    @property
    @abstractmethod
    def ply(self) -> int:
        """Moves made so far (in-turn actions such as offers are not moves)."""

    @abstractmethod
    def team_of(self, seat: int) -> int:
        """The team a seat plays for (chess: its colour)."""

    def returns(self) -> list[float]:
        """Per seat: 1 for a win, 0 for a loss, 0.5 for a draw (or an unfinished game)."""
        out = self.outcome()
        if out is None or out.winner is None:
            return [0.5] * self.seats
        return [1.0 if self.team_of(s) == out.winner else 0.0 for s in range(self.seats)]

    # ------------------------------------------------------------------ agents' side
    @abstractmethod
    def to_json(self, seat: int, fields: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The state JSON the game's protocol sends ``seat``; ``fields`` are the referee's
        optional fields (``last_error``, ``clock``, ``move_time_limit``) in the game's words."""

    @abstractmethod
    def judge(self, answer: Any, *, lenient: bool = False) -> Any:
        """The action a decoded answer (a JSON value, or a trusted in-process agent's native
        action) names for the current seat, or a :class:`Refusal`. Never changes the state."""

    @abstractmethod
    def action_text(self, action: Any) -> str:
        """An action in the game's notation (event logs, move lists)."""

    # ------------------------------------------------------------------ the referee's side
    @abstractmethod
    def forfeit(self, seat: int, termination: str, reason: str) -> None:
        """End the game against ``seat`` (a forfeit, or ``abandoned`` when nobody is to blame).
        A game may soften one (FIDE: a flag against a side that cannot mate draws)."""

    def clock_field(self, remaining: Sequence[float], increment: float, moves_to_go: int) -> Any:
        """The ``clock`` state field in the game's words (default: remaining seconds by seat)."""
        out: dict[str, Any] = {
            "remaining": [round(r, 3) for r in remaining],
            "increment": increment,
        }
        if moves_to_go:
            out["moves_to_go"] = moves_to_go
        return out

    def result_text(self) -> str:
        """The result as the game writes it (chess: ``1-0``); ``*`` while unfinished."""
        out = self.outcome()
        if out is None or out.unfinished:
            return "*"
        return "draw" if out.winner is None else f"team {out.winner} wins"

    def action_kind(self, action: Any) -> str:
        """The decision word of the event log for ``action`` (``move`` for a move)."""
        return "move"

    def notes(self, action: Any) -> list[str]:
        """Decisions the referee logs before applying ``action`` (chess: a declined offer)."""
        return []

    def moves(self) -> list[str]:
        """The moves of the game so far in the game's notation (the results line's ``moves``)."""
        return []

    def summary(self) -> dict[str, Any]:
        """The game's own fields of its results line (chess: ``start_fen``, ``opening``)."""
        return {}

    def record(self, names: Sequence[str], result: Any) -> str | None:
        """The game's text record when the state is what it needs (Enochian); None when the
        game writes records from results alone (chess, see :meth:`Game.record_text`)."""
        return None

    def views(self, seat: int, names: Sequence[str]) -> dict[str, str]:
        """Named texts that show ``seat`` the position another way beside the state JSON
        (chess: ``fen``, ``ascii``, ``legal``, ``history``), for language models; only the
        ``names`` asked for, each one of :attr:`Game.view_names`. Default: none."""
        return {}


class Game(ABC):
    """A game the arena can referee. Subclasses are registered by name (see
    :func:`enoch.game.registry.register_game`)."""

    #: the ``--variant`` name
    name: str = "game"
    title: str = "a game"
    #: the record format's file suffix and name (PGN for chess)
    record_format: str = "text"
    #: how many ``rule`` refusals in one turn forfeit (FIDE: a second wrong claim)
    rule_refusals: int = 2
    #: the options a user may set (``--option KEY=VALUE``)
    options: tuple[OptionSpec, ...] = ()
    #: the option that fixes the number of seats, if one does (Enochian: ``players``)
    seats_option: str | None = None
    #: the referee's default move limit (None: the rules end every game)
    default_max_plies: int | None = None
    #: the seat names people read (``white``/``black``); indexed by seat
    seat_names: tuple[str, ...] = ()
    #: the names :meth:`State.views` knows, and those a language model is shown by default
    view_names: tuple[str, ...] = ()
    default_views: tuple[str, ...] = ()

    # ------------------------------------------------------------------ declaration
    def setup(
        self, values: Mapping[str, Any] | None = None, *, max_plies: int | None = None
    ) -> Setup:
        """Options parsed and checked (strings as from ``--option``, or Python values), with
        every default filled; unknown names and bad values are :class:`InputError`.
        ``max_plies`` None takes the game's :attr:`default_max_plies` (a game whose rules
        cannot end every game, like Enochian, must not run forever from the library either)."""
        from enoch.game.options import parse_options

        if max_plies is None:
            max_plies = self.default_max_plies
        return Setup(parse_options(self.options, values or {}, game=self.name), max_plies)

    @abstractmethod
    def seats(self, setup: Setup) -> int:
        """How many seats a game with these options has."""

    def seat_name(self, setup: Setup, seat: int) -> str:
        names = self.seat_names
        return names[seat] if seat < len(names) else f"seat {seat}"

    @abstractmethod
    def new_state(self, setup: Setup, start: Start | None = None) -> State:
        """The first state of a game from ``start`` (None: the game's usual start)."""

    @abstractmethod
    def starts(self, setup: Setup, spec: str | None = None) -> list[Start]:
        """The starts a schedule rotates through: ``spec`` is the user's choice (a FEN or an
        openings file; array names), None for the game's default set."""

    # ------------------------------------------------------------------ agents
    #: built-in agents: name -> "module:Class" (the class takes its options as keywords)
    builtins: Mapping[str, str] = {}
    #: prefixes of agent names only this game knows (chess: ``uci:``)
    prefixes: tuple[str, ...] = ()

    def make_builtin(self, name: str, options: Mapping[str, str]) -> Any:
        """A built-in agent object (see :attr:`builtins`)."""
        from enoch._builtins import make_from_table

        return make_from_table(name, options, self.builtins, self.name)

    def builtin_player(self, label: str, agent: Any) -> Any:
        """A player for an in-process agent of this game (a fast path may skip JSON); None
        leaves it to the arena's generic object player."""
        return None

    def prefixed_player(self, spec: str, label: str, limits: Any) -> Any:
        """A player for one of :attr:`prefixes` (chess: a UCI engine)."""
        from enoch.errors import InputError, quote

        raise InputError(f"unknown agent {quote(spec)} for {self.name}")

    def check_prefixed(self, spec: str) -> None:  # noqa: B027 (optional hook)
        """Refuse now a prefixed name that can never make a player (without starting it)."""

    def human(self) -> Any:
        """An agent that asks a person at the terminal (the ``human`` seat)."""
        from enoch.errors import InputError

        raise InputError(f"{self.name} has no terminal player")

    # ------------------------------------------------------------------ for language models
    def rulebook(self) -> str:
        """The rules and the protocol written for a model (``enoch rulebook``): the system
        prompt of ``llm:`` agents. Default: a short note that points at the state's fields."""
        return (
            f"You play {self.title}. Before each of your decisions you receive the state as "
            "JSON; answer with exactly one JSON object, as the game's protocol defines it.\n"
        )

    def answer_schema(self) -> dict[str, Any] | None:
        """The JSON Schema of an answer (an endpoint's structured-output mode), if any."""
        return None

    # ------------------------------------------------------------------ records
    def record_text(self, result: Any, *, event: str, round_: str) -> str:
        """One finished game in the game's record format (``result``: an arena GameResult)."""
        record = getattr(result, "record", None)
        return (record or "") + "\n"

    def board(self, state: State, colour: bool) -> Any:
        """The position drawn for a terminal (a rich renderable or text)."""
        return str(state.to_json(state.current_seat()))


__all__ = [
    "FORFEITS",
    "REFEREE_TERMINATIONS",
    "REFUSAL_KINDS",
    "Game",
    "Outcome",
    "Refusal",
    "Setup",
    "Start",
    "State",
]
