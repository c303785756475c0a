"""check_game runs against every registered game, and fails games that break the API.

Three kinds of test. Every game found by name plays the conformance playouts with the setups
that reach its corners (chess: castling, en passant, promotion, the fifty-move claim; Enochian:
two and four players, divination). A small third game written here (a counting race with three
seats and an in-turn action) passes it too, so the checker is not shaped after chess alone; and
copies of that game broken one way each are caught, with a message that names what broke.
Last, minimal reproductions of the bugs check_game found in the games themselves.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from enoch.enochian.state import OFFER, WITHDRAW
from enoch.fide.game import ChessGame, ChessState
from enoch.game import (
    Game,
    OptionSpec,
    Outcome,
    Refusal,
    Setup,
    Start,
    State,
    find_game,
    game_names,
)
from enoch.game.conformance import check_game

# Castling both ways for both sides, an en passant capture (exd6), promotions for both sides.
CORNERS_FEN = "r3k2r/1P6/8/3pP3/8/8/6p1/R3K2R w KQkq d6 0 1"
# One quiet move from a valid fifty-move claim (the halfmove clock is 99).
FIFTY_FEN = "r3k3/8/8/8/8/8/8/R3K2R w KQq - 99 80"

#: The setups each game's conformance run covers (None: the game's default setup).
SETUPS: dict[str, list[Mapping[str, Any] | None]] = {
    "chess": [None, {"fen": CORNERS_FEN}, {"fen": FIFTY_FEN}],
    "enochian": [{"players": 2}, {"players": 4}, {"divination": True}],
}


def _cases() -> list[Any]:
    out = []
    for name in game_names():
        for index, options in enumerate(SETUPS.get(name, [None])):
            label = (
                "default" if options is None else ",".join(f"{k}={v}" for k, v in options.items())
            )
            # the first setup with the defaults, the others with fewer playouts (time)
            playouts = 20 if index == 0 else 8
            out.append(pytest.param(name, options, playouts, id=f"{name}-{label[:40]}"))
    return out


@pytest.mark.parametrize(("name", "options", "playouts"), _cases())
def test_every_game_conforms(name: str, options: Mapping[str, Any] | None, playouts: int) -> None:
    game = find_game(name)
    check_game(game, setups=None if options is None else [options], playouts=playouts)


def test_every_registered_game_has_its_setups_listed() -> None:
    # a new game must say here which setups reach its corners
    assert set(game_names()) >= {"chess", "enochian"}
    assert set(SETUPS) <= set(game_names())


# ---------------------------------------------------------------------------- a third game
BOAST = 0  # the in-turn action: a seat may boast once a turn, then it must still move


class RaceState(State):
    """Seats in turn add 1 or 2 to a total; the seat that reaches the target wins for its team
    (teams: seat % 2). A correct game, to which the broken ones below add one fault each."""

    def __init__(self, game: RaceGame, seats: int, target: int, max_plies: int | None) -> None:
        self.game = game
        self.seats = seats
        self.target = target
        self.max_plies = max_plies
        self.total = 0
        self.added: list[int] = []
        self.boasted = False
        self.ended: Outcome | None = None
        self.stack: list[tuple[str, Any]] = []

    @property
    def ply(self) -> int:
        return len(self.added)

    def team_of(self, seat: int) -> int:
        return seat % 2

    def current_seat(self) -> int:
        return self.ply % self.seats

    def outcome(self) -> Outcome | None:
        if self.ended is not None:
            return self.ended
        if self.total >= self.target:
            seat = (self.ply - 1) % self.seats
            return Outcome("target", self.team_of(seat), f"seat {seat} reaches {self.target}")
        if self.max_plies is not None and self.ply >= self.max_plies:
            return Outcome("move_limit", None, "the move limit")
        return None

    def legal_actions(self) -> list[Any]:
        if self.outcome() is not None:
            return []
        return [1, 2] if self.boasted else [BOAST, 1, 2]

    def apply(self, action: Any) -> None:
        if action == BOAST:
            self.stack.append(("boast", None))
            self.boasted = True
            return
        self.stack.append(("move", self.boasted))
        self.boasted = False
        self.added.append(action)
        self.total += action

    def undo(self) -> None:
        kind, data = self.stack.pop()
        if kind == "boast":
            self.boasted = False
        elif kind == "move":
            self.total -= self.added.pop()
            self.boasted = data
        else:
            self.ended = data

    def forfeit(self, seat: int, termination: str, reason: str) -> None:
        self.stack.append(("end", self.ended))
        if termination == "abandoned":
            self.ended = Outcome("abandoned", None, reason, unfinished=True)
        else:
            self.ended = Outcome(termination, 1 - self.team_of(seat), f"seat {seat}: {reason}")

    def to_json(self, seat: int, fields: Mapping[str, Any] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "total": self.total,
            "target": self.target,
            "seat": seat,
            "to_move": self.current_seat() if self.outcome() is None else None,
            "boasted": self.boasted,
            "added": list(self.added),
        }
        out.update(fields or {})
        return out

    def judge(self, answer: Any, *, lenient: bool = False) -> Any:
        if type(answer) is int:
            if answer in self.legal_actions():
                return answer
            return Refusal("illegal_move", f"{answer} is not legal now")
        if not isinstance(answer, dict):
            return Refusal("invalid_answer", "an answer is a JSON object")
        if answer == {"action": "boast"}:
            return BOAST if not self.boasted else Refusal("rule", "one boast a turn")
        if set(answer) != {"add"} or answer["add"] not in (1, 2) or type(answer["add"]) is not int:
            return Refusal("invalid_answer", 'expected {"add": 1 or 2} or {"action": "boast"}')
        return int(answer["add"])

    def action_text(self, action: Any) -> str:
        return "boast" if action == BOAST else f"+{action}"

    def action_kind(self, action: Any) -> str:
        return "boast" if action == BOAST else "move"

    def moves(self) -> list[str]:
        return [f"+{a}" for a in self.added]


class RaceGame(Game):
    name = "race"
    options: tuple[OptionSpec, ...] = (
        OptionSpec("players", "int", 3, "seats", choices=(2, 3)),
        OptionSpec("target", "int", 12, "the total that wins", minimum=1, maximum=100),
    )
    seats_option = "players"
    state_class: type[RaceState] = RaceState

    def seats(self, setup: Setup) -> int:
        return int(setup.options["players"])

    def new_state(self, setup: Setup, start: Start | None = None) -> State:
        target = setup.options["target"] if start is None else int(start.data)
        return self.state_class(self, self.seats(setup), target, setup.max_plies)

    def starts(self, setup: Setup, spec: str | None = None) -> list[Start]:
        return [Start("short", 5), Start("long", 30)]


def test_a_correct_third_game_passes() -> None:
    check_game(
        RaceGame(), setups=[{}, {"players": 2, "target": 40}, Setup({"players": 3, "target": 9})]
    )


def test_setups_none_and_empty() -> None:
    check_game(RaceGame(), playouts=2)  # the default setup
    with pytest.raises(ValueError, match="at least one setup"):
        check_game(RaceGame(), setups=[])


class UndoForgetsBoast(RaceState):
    def undo(self) -> None:
        kind, _ = self.stack[-1]
        super().undo()
        if kind == "move":
            self.boasted = False  # forgets that the seat had boasted before its move


class JudgeRaises(RaceState):
    def judge(self, answer: Any, *, lenient: bool = False) -> Any:
        if answer is None:
            raise TypeError("'NoneType' object is not subscriptable")  # it must refuse instead
        return super().judge(answer, lenient=lenient)


class JudgeTakesEmpty(RaceState):
    def judge(self, answer: Any, *, lenient: bool = False) -> Any:
        return 1 if answer == {} else super().judge(answer, lenient=lenient)


class JudgeChangesState(RaceState):
    def judge(self, answer: Any, *, lenient: bool = False) -> Any:
        if answer == {"action": "dance"}:
            self.boasted = True
        return super().judge(answer, lenient=lenient)


class ForfeitRewards(RaceState):
    def forfeit(self, seat: int, termination: str, reason: str) -> None:
        super().forfeit(seat, termination, reason)
        if termination != "abandoned":
            self.ended = Outcome(termination, self.team_of(seat), reason)


class ForfeitOnlyCurrent(RaceState):
    def forfeit(self, seat: int, termination: str, reason: str) -> None:
        super().forfeit(self.current_seat(), termination, reason)  # ignores ``seat``


class ForfeitNoUndo(RaceState):
    def forfeit(self, seat: int, termination: str, reason: str) -> None:
        self.ended = Outcome(termination, None, reason, termination == "abandoned")

    def undo(self) -> None:
        if self.stack:
            super().undo()


class LegalWhenOver(RaceState):
    def legal_actions(self) -> list[Any]:
        return [1, 2]


class TupleInView(RaceState):
    def to_json(self, seat: int, fields: Mapping[str, Any] | None = None) -> dict[str, Any]:
        out = super().to_json(seat, fields)
        out["added"] = tuple(self.added)
        return out


class MovesLag(RaceState):
    def moves(self) -> list[str]:
        return super().moves()[:-1] if self.ply > 3 else super().moves()


class ReturnsForAll(RaceState):
    def returns(self) -> list[float]:
        return [1.0] * self.seats if self.outcome() is not None else super().returns()


class NoMoveEver(RaceState):
    def legal_actions(self) -> list[Any]:
        return [] if self.outcome() is not None else [BOAST]

    def apply(self, action: Any) -> None:
        self.stack.append(("boast", None))  # a boast that never runs out


class StaleCache(RaceState):
    """Caches the JSON of its moves and extends the cache, never trims it: the chess bug."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.cache: list[str] = []

    def to_json(self, seat: int, fields: Mapping[str, Any] | None = None) -> dict[str, Any]:
        while len(self.cache) < len(self.added):
            self.cache.append(f"+{self.added[len(self.cache)]}")
        out = super().to_json(seat, fields)
        out["cached"] = self.cache[: len(self.added)]
        return out


class ResultWhileOn(RaceState):
    def result_text(self) -> str:
        return "draw" if self.outcome() is None else super().result_text()


BROKEN: list[tuple[type[RaceState], str]] = [
    (UndoForgetsBoast, r"did not restore (legal_actions\(\)|to_json)"),
    (JudgeRaises, r"judge\(None\) raised TypeError"),
    (JudgeTakesEmpty, r"judge\(\{\}\) returned 1, not an invalid_answer Refusal"),
    (JudgeChangesState, r"judge \(which must not change the state\) did not restore"),
    (ForfeitRewards, r"the forfeiting seat's own team \d wins"),
    (ForfeitOnlyCurrent, r"forfeit\(\d, 'crash', \.\.\.\) with seat \d to move: the forfeiting"),
    (ForfeitNoUndo, r"undo of forfeit\(\d, 'crash'"),
    (LegalWhenOver, r"legal_actions\(\) is \[1, 2\] in a finished game"),
    (TupleInView, r"does not come back from json\.dumps/json\.loads unchanged"),
    (MovesLag, r"moves\(\) has 3 moves but ply is 4"),
    (ReturnsForAll, r"returns\(\) is \[1\.0, 1\.0, 1\.0\]"),
    (NoMoveEver, r"64 actions in a row without a move"),
    (StaleCache, r"differs from the new state in to_json: /cached/\d"),
    (ResultWhileOn, r"result_text\(\) is 'draw' while the game goes on"),
]


@pytest.mark.parametrize(("cls", "message"), BROKEN, ids=[c.__name__ for c, _ in BROKEN])
def test_a_broken_game_is_caught(cls: type[RaceState], message: str) -> None:
    game = RaceGame()
    game.state_class = cls
    with pytest.raises(AssertionError, match=message) as caught:
        check_game(game)
    # the message says where: the game, the playout and the ply
    assert str(caught.value).startswith("race with its defaults")
    assert "ply" in str(caught.value) or "playout" in str(caught.value)


def test_a_broken_declaration_is_caught() -> None:
    class TwoDefaults(RaceGame):
        options = (OptionSpec("target", "int", 12, "x"), OptionSpec("target", "int", 3, "y"))

    with pytest.raises(AssertionError, match="option 'target' is declared twice"):
        check_game(TwoDefaults())

    class BadDefault(RaceGame):
        options = (OptionSpec("players", "int", 3, "seats", choices=(2, 4)),)

    with pytest.raises(AssertionError, match="the default of option 'players'"):
        check_game(BadDefault())

    class UnknownView(RaceGame):
        default_views = ("board",)

    with pytest.raises(AssertionError, match="default view 'board' is not in view_names"):
        check_game(UnknownView())


class ChessMissingView(ChessState):
    """Chess that forgets one of its declared views."""

    def views(self, seat: int, names: Sequence[str]) -> dict[str, str]:
        out = super().views(seat, names)
        out.pop("history", None)
        return out


class ChessWithoutHistoryView(ChessGame):
    def new_state(self, setup: Setup, start: Start | None = None) -> ChessState:
        good = super().new_state(setup, start)
        return ChessMissingView(self, good.start_fen, good.moves(), good.opening, setup.max_plies)


def test_a_view_that_is_missing_is_caught() -> None:
    with pytest.raises(AssertionError, match=r"views\(\['fen', 'ascii', 'legal', 'history'\]\)"):
        check_game(ChessWithoutHistoryView())


class ChessUndoForgetsOffer(ChessState):
    """Chess whose undo of a move forgets the draw offer that stood before it."""

    def undo(self) -> None:
        entry = self._stack[-1]
        super().undo()
        if entry[0] == "move":
            self.offer_from, self.offered_now = None, False


class BrokenChess(ChessGame):
    def new_state(self, setup: Setup, start: Start | None = None) -> ChessState:
        good = super().new_state(setup, start)
        return ChessUndoForgetsOffer(
            self, good.start_fen, good.moves(), good.opening, setup.max_plies
        )


def test_chess_whose_undo_forgets_the_draw_offer_is_caught() -> None:
    with pytest.raises(AssertionError, match=r"did not restore (legal_actions\(\)|to_json)"):
        check_game(BrokenChess())


def test_the_same_seed_fails_at_the_same_place() -> None:
    # A seeded run fails at the same ply with the same message every time, so it can be replayed.
    messages = []
    for _ in range(2):
        game = RaceGame()
        game.state_class = UndoForgetsBoast
        with pytest.raises(AssertionError) as caught:
            check_game(game, seed=7)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


# ---------------------------------------------------------------------------- found bugs
def _play(state: State, moves: Sequence[str]) -> None:
    assert isinstance(state, ChessState)
    for uci in moves:
        state.apply(state.pos.parse_uci(uci))


def test_chess_position_history_after_undo_and_another_line() -> None:
    # BUG (src/enoch/fide/game.py, ChessState.undo/history): the cached position_history is
    # not trimmed by undo, so after undo and a different line the state sends the old line's
    # positions to the agent (and repetition-aware agents see a wrong history).
    game = find_game("chess")
    used = game.new_state(game.setup())
    _play(used, ["e2e4", "e7e5", "g1f3"])
    used.to_json(0)  # an agent was sent this state: the history is cached
    for _ in range(3):
        used.undo()
    _play(used, ["d2d4", "d7d5", "c2c4"])
    fresh = game.new_state(game.setup())
    _play(fresh, ["d2d4", "d7d5", "c2c4"])
    assert used.to_json(0)["position_history"] == fresh.to_json(0)["position_history"]


def test_enochian_forfeit_ends_the_game_against_the_seat_given() -> None:
    # BUG (src/enoch/enochian/game.py, EnochianState.forfeit): the seat argument is ignored
    # and the army to act loses, so forfeit(1, ...) with seat 0 to move makes seat 0's team
    # lose and seat 1's win; the API says the game ends against the seat given.
    game = find_game("enochian")
    for players in (2, 4):
        state = game.new_state(game.setup({"players": players}))
        assert state.current_seat() == 0
        state.forfeit(1, "crash", "its process died")
        out = state.outcome()
        assert out is not None
        assert out.winner == 1 - state.team_of(1), out


def _enochian_offer_pending() -> State:
    game = find_game("enochian")
    setup = game.setup({"players": 4}, max_plies=400)
    state = game.new_state(setup)
    rng = random.Random(1)  # this line reaches an exchange of prisoners at ply 124
    while OFFER not in state.legal_actions():
        assert not state.is_terminal()
        state.apply(rng.choice(list(state.legal_actions())))
    state.apply(OFFER)
    return state


def test_enochian_judge_refuses_a_native_withdraw_while_an_offer_pends() -> None:
    # BUG (src/enoch/enochian/game.py, EnochianState.judge): a native WITHDRAW is returned as
    # an action even while an exchange offer awaits an answer, though apply refuses it then
    # (IllegalMoveError out of the referee's loop, and the rules state keeps a stray undo
    # snapshot and log line). The JSON {"action": "withdraw"} is refused correctly.
    state = _enochian_offer_pending()
    assert isinstance(state.judge({"action": "withdraw"}), Refusal)
    verdict = state.judge(WITHDRAW)
    assert isinstance(verdict, Refusal), verdict
