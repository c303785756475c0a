"""One conformance test for every game of the arena: seeded random playouts that check the API.

Why one test for all games. The referee (:mod:`enoch.arena.referee`) is written once against
:mod:`enoch.game.api` and trusts a game on everything it does not look into: that the seat to
move is a real seat, that ``judge`` refuses what it cannot read instead of raising, that
``undo`` takes back exactly what ``apply`` or ``forfeit`` did (searching agents and viewers
rely on it), that the returns of a finished game are the ones its outcome says. Every game
written against the API can break those promises in its own way, and a game's own tests test
its rules, not the promises. So, as OpenSpiel does for its games, one function plays seeded
random games of any game and checks the promises at every step, and every registered game runs
it in the test suite. It ships in the package because whoever writes a new game needs it
first: ``check_game(MyGame())`` raises :class:`AssertionError` saying which promise broke,
where (setup, start, playout, ply and the last moves) and with what values.

What is checked:

- the declaration: options (unique names, defaults that parse to themselves), seats, seat
  names, teams, the starts of a schedule; for language models, default views among the view
  names, a rulebook text, an answer schema (a dict) or None;
- every live state: ``current_seat()`` in range, ``legal_actions()`` non-empty, no outcome,
  ``result_text()`` is ``*``, ``len(moves()) == ply``; ``to_json(seat)`` of every seat (and with
  the referee's optional fields) survives ``json.dumps``/``json.loads`` unchanged; every few
  plies ``views`` gives a text for each of the game's view names;
- ``judge``: every legal action, given natively, comes back as is; malformed answers
  (:data:`MALFORMED_ANSWERS`) are an ``invalid_answer`` :class:`~enoch.game.api.Refusal`; it
  never raises and never changes the state; every refusal has a known kind and a reason;
- ``apply``: a ``move`` adds one ply and its ``action_text`` ends ``moves()``, any other action
  adds none; ``apply`` then ``undo`` restores the JSON view, ply, seat, outcome, legal actions,
  moves and result exactly, and applying again gives the same state again; undoing a whole
  playout step by step passes back through every state it went through; and a state brought
  back to its start by undo then given new actions looks exactly like a new state given the
  same (no cache of a line taken back may show);
- ``forfeit``: ``crash`` ends the game against the seat given, the seat to move or any other,
  and so does ``timeout`` of the seat to move (its team does not win; a game may soften that to
  a draw), keeping the referee's reason; ``abandoned`` leaves the game unfinished; ``undo``
  takes each back;
- every terminal state: a termination word, a winner that is a team or None, no legal
  actions, ``returns()`` one per seat in {0, 0.5, 1} as the outcome says (so equal within a
  team), ``result_text()`` a string that is ``*`` exactly when the game is unfinished.

The full checks run at every ply of the first playouts and at every few plies of the others,
so that the defaults take a few seconds per game.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from enoch.game.api import REFUSAL_KINDS, Game, Outcome, Refusal, Setup, Start, State
from enoch.game.options import OptionSpec

#: Answers every game must refuse as ``invalid_answer``. The last three use the ``from``/``to``
#: and ``action`` words of enoch's games; a game with other words refuses them all the more.
MALFORMED_ANSWERS: tuple[Any, ...] = (
    None,
    [],
    42.5,
    "text",
    True,
    {},
    {"from": "zz"},
    {"action": "dance"},
    {"from": "a1", "to": "a2", "promotion": None, "comment": "an extra key"},
)
#: Of :data:`MALFORMED_ANSWERS`, those that even a lenient judge cannot read.
_UNREADABLE: tuple[Any, ...] = (None, [], 42.5, "text", True)
#: Actions in a row without a move after which a game is deemed unable to go on.
_STALL = 64
#: The full checks (every seat's view, every legal action judged, forfeits, apply and undo of
#: another action) run at every ply of the first ``_FULL_PLAYOUTS`` playouts and every
#: ``_STRIDE`` plies of the others.
_FULL_PLAYOUTS = 1
_STRIDE = 16
_VALID_RETURNS = (0.0, 0.5, 1.0)
#: Actions played on an unwound state and on a new one to compare them.
_REPLAY_STEPS = 24

#: A setup, or options to make one with ``game.setup``.
SetupLike = Setup | Mapping[str, Any]


@dataclass
class _Snapshot:
    """What undo must restore. ``view`` is the JSON text of ``to_json`` (a copy nothing can
    alias), or None where it was not taken."""

    ply: int
    seat: int | None
    outcome: Outcome | None
    legal: list[Any]
    moves: list[str]
    result: str
    view: str | None


_LABELS = {"seat": "current_seat()", "legal": "legal_actions()", "view": "to_json"}


class _Where:
    """Where the checks are, for the message of a failure."""

    def __init__(self, game: Game, setup: Setup) -> None:
        self.game = game
        self.setup = setup
        self.playout: int | None = None
        self.start: str | None = None
        self.state: State | None = None

    def fail(self, message: str) -> AssertionError:
        defaults = {spec.name: spec.default for spec in self.game.options}
        changed = {k: v for k, v in self.setup.options.items() if defaults.get(k) != v}
        parts = [f"{self.game.name} with {f'options {changed!r}' if changed else 'its defaults'}"]
        if self.start is not None:
            parts.append(f"start {self.start!r}")
        if self.playout is not None:
            parts.append(f"playout {self.playout}")
        state = self.state
        if state is not None:
            try:
                moves = list(state.moves())
                ply: Any = state.ply
            except Exception as exc:  # the failure may be in these very methods
                moves, ply = [], f"? ({type(exc).__name__})"
            shown = " ".join(str(m) for m in moves[-10:])
            if len(moves) > 10:
                shown = "... " + shown
            parts.append(f"ply {ply} (moves: {shown or 'none'})")
        return AssertionError(f"{', '.join(parts)}: {message}")


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_game(
    game: Game,
    *,
    setups: Sequence[SetupLike] | None = None,
    playouts: int = 20,
    seed: int = 0,
    max_plies: int = 300,
) -> None:
    """Play ``playouts`` seeded random games of ``game`` for each setup and check the promises
    of the game API at every step; raise :class:`AssertionError` at the first one broken.

    ``setups`` are :class:`~enoch.game.api.Setup` values or option mappings (made into setups
    by ``game.setup`` with ``max_plies`` as the referee's move limit); the default is the
    game's default setup alone. Playouts alternate between the game's usual start and the
    starts of its schedule (:meth:`~enoch.game.api.Game.starts`) and stop after ``max_plies``
    plies if the game has not ended by then. The same arguments play the same games.
    """
    _check_declaration(game)
    chosen = list(setups) if setups is not None else [game.setup(max_plies=max_plies)]
    if not chosen:
        raise ValueError("check_game needs at least one setup")
    for index, given in enumerate(chosen):
        setup = given if isinstance(given, Setup) else game.setup(given, max_plies=max_plies)
        where = _Where(game, setup)
        starts = _check_setup(game, setup, where)
        rng = random.Random(seed * 1_000_003 + index)
        for k in range(playouts):
            start = None if k % 2 == 0 else starts[(k // 2) % len(starts)]
            where.playout = k
            where.start = None if start is None else start.name
            where.state = None
            state = game.new_state(setup, start)
            where.state = state
            _playout(state, rng, where, full=k < _FULL_PLAYOUTS, max_plies=max_plies)
            _check_replay(game, setup, start, state, rng, where)


# ---------------------------------------------------------------------------- declaration
def _check_declaration(game: Game) -> None:
    where = f"game {getattr(game, 'name', '?')!r}"
    if not isinstance(game.name, str) or not game.name:
        raise AssertionError(f"{where}: name must be a non-empty string, not {game.name!r}")
    names: set[str] = set()
    for spec in game.options:
        if not isinstance(spec, OptionSpec):
            raise AssertionError(f"{where}: options must be OptionSpec values, not {spec!r}")
        if spec.name in names:
            raise AssertionError(f"{where}: option {spec.name!r} is declared twice")
        names.add(spec.name)
        if spec.default is None:
            continue
        try:
            parsed = spec.parse(spec.default, game.name)
        except Exception as exc:
            raise AssertionError(
                f"{where}: the default of option {spec.name!r} ({spec.default!r}) is refused: {exc}"
            ) from None
        if parsed != spec.default or type(parsed) is not type(spec.default):
            raise AssertionError(
                f"{where}: the default of option {spec.name!r} parses to {parsed!r}, "
                f"not to itself ({spec.default!r})"
            )
    if game.seats_option is not None and game.seats_option not in names:
        raise AssertionError(f"{where}: seats_option {game.seats_option!r} is not an option")
    if not _is_int(game.rule_refusals) or game.rule_refusals < 1:
        raise AssertionError(f"{where}: rule_refusals must be a positive int")
    unknown = [v for v in game.default_views if v not in game.view_names]
    if unknown:
        raise AssertionError(f"{where}: default view {unknown[0]!r} is not in view_names")
    rulebook = game.rulebook()
    if not isinstance(rulebook, str) or not rulebook.strip():
        raise AssertionError(f"{where}: rulebook() must be a non-empty text")
    schema = game.answer_schema()
    if schema is not None and not isinstance(schema, dict):
        raise AssertionError(f"{where}: answer_schema() must be a dict or None")


def _check_setup(game: Game, setup: Setup, where: _Where) -> list[Start]:
    seats = game.seats(setup)
    if not _is_int(seats) or seats < 1:
        raise where.fail(f"seats(setup) is {seats!r}, not a positive int")
    for seat in range(seats):
        name = game.seat_name(setup, seat)
        if not isinstance(name, str) or not name:
            raise where.fail(f"seat_name(setup, {seat}) is {name!r}")
    starts = game.starts(setup)
    if not isinstance(starts, list) or not starts:
        raise where.fail(f"starts(setup) is {_short(starts)}, not a non-empty list")
    for start in starts:
        if not isinstance(start, Start):
            raise where.fail(f"starts(setup) holds {_short(start)}, not a Start")
    state = game.new_state(setup)
    where.state = state
    if state.seats != seats:
        raise where.fail(f"state.seats is {state.seats!r} but seats(setup) is {seats}")
    if state.game is not game:
        raise where.fail("state.game is not the game that made the state")
    for seat in range(seats):
        team = state.team_of(seat)
        if not _is_int(team) or team < 0:
            raise where.fail(f"team_of({seat}) is {team!r}, not a non-negative int")
    where.state = None
    return starts


# ---------------------------------------------------------------------------- one playout
def _playout(
    state: State, rng: random.Random, where: _Where, *, full: bool, max_plies: int
) -> None:
    teams = [state.team_of(s) for s in range(state.seats)]
    step = 0
    trail = [_snapshot(state, where, view=True)]
    stall = 0
    while not state.is_terminal() and state.ply < max_plies:
        legal = _check_live(state, where)
        deep = full or step % _STRIDE == 0
        if deep and trail[-1].view is None:
            trail[-1] = _snapshot(state, where, view=True)
        here = trail[-1]
        if deep:
            _check_views(state, where)
            _check_judge(state, where, legal, here)
            _check_forfeits(state, where, teams, here)
            _check_apply_undo(state, where, rng.choice(legal), teams, here)
        action = rng.choice(legal)
        verdict = _judge(state, where, action)
        if isinstance(verdict, Refusal) or verdict != action:
            raise where.fail(
                f"judge of the legal action {_short(action)} returned {_short(verdict)}, "
                "not the action"
            )
        step += 1
        after = _apply(state, where, action, teams, here if deep else None)
        trail.append(after)
        stall = 0 if after.ply > here.ply else stall + 1
        if stall >= _STALL and not state.is_terminal():
            raise where.fail(f"{_STALL} actions in a row without a move: it may never end")
    if state.is_terminal():
        _check_terminal(state, where, teams)
    else:
        _check_live(state, where)
        _check_forfeits(state, where, teams, trail[-1])
    # Undo the whole playout: every step must come back to the state it left.
    for index in range(len(trail) - 1, 0, -1):
        state.undo()
        before = trail[index - 1]
        _compare(before, _snapshot(state, where, view=before.view is not None), where, "undo")


def _check_live(state: State, where: _Where) -> list[Any]:
    """The checks of a state that is not over; returns its legal actions."""
    outcome = state.outcome()
    if outcome is not None:
        raise where.fail(f"is_terminal() is False but outcome() is {_short(outcome)}")
    seat = state.current_seat()
    if not _is_int(seat) or not 0 <= seat < state.seats:
        raise where.fail(f"current_seat() is {seat!r}, not a seat of 0..{state.seats - 1}")
    legal = list(state.legal_actions())
    if not legal:
        raise where.fail("legal_actions() is empty in a game that is not over")
    result = state.result_text()
    if result != "*":
        raise where.fail(f"result_text() is {result!r} while the game goes on, not '*'")
    _check_moves(state, where)
    return legal


def _check_moves(state: State, where: _Where) -> list[str]:
    ply = state.ply
    if not _is_int(ply) or ply < 0:
        raise where.fail(f"ply is {ply!r}, not a non-negative int")
    moves = state.moves()
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise where.fail(f"moves() is {_short(moves)}, not a list of strings")
    if len(moves) != ply:
        raise where.fail(f"moves() has {len(moves)} moves but ply is {ply}")
    return moves


def _json_text(value: Any, where: _Where, what: str) -> str:
    """``value`` as JSON text, checked to come back from ``json.loads`` unchanged."""
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise where.fail(f"{what} is not JSON: {exc}") from None
    if json.loads(text) != value:
        raise where.fail(
            f"{what} does not come back from json.dumps/json.loads unchanged (a tuple? a key "
            f"that is not a string?): {_short(value)}"
        )
    return text


def _view(
    state: State,
    where: _Where,
    seat: int,
    fields: Mapping[str, Any] | None = None,
    *,
    round_trip: bool = True,
) -> str:
    """``to_json(seat, fields)`` as JSON text; ``round_trip`` checks it loads back the same
    (snapshots leave that to :func:`_check_views`, which sees the same views)."""
    what = f"to_json({seat}{', fields' if fields else ''})"
    try:
        view = state.to_json(seat, fields)
    except Exception as exc:
        raise where.fail(f"{what} raised {type(exc).__name__}: {exc}") from None
    if not isinstance(view, dict):
        raise where.fail(f"{what} is {_short(view)}, not a JSON object")
    if not round_trip:
        try:
            return json.dumps(view, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise where.fail(f"{what} is not JSON: {exc}") from None
    return _json_text(view, where, what)


def _check_views(state: State, where: _Where) -> None:
    """Every seat's view, and the seat to move's with the referee's optional fields; every
    ply of eight, the views a language model is shown (``State.views``)."""
    for seat in range(state.seats):
        _view(state, where, seat)
    if state.ply % 8 == 0:
        names = state.game.view_names
        views = state.views(state.current_seat(), names)
        if set(views) != set(names) or not all(isinstance(t, str) for t in views.values()):
            raise where.fail(f"views({list(names)}) gave {_short(views)}")
    clock = state.clock_field([60.0] * state.seats, 0.5, 0)
    _json_text(clock, where, "clock_field(...)")
    fields = {"last_error": "a refused answer", "move_time_limit": 1.5, "clock": clock}
    kept = copy.deepcopy(fields)
    _view(state, where, state.current_seat(), fields)
    if fields != kept:
        raise where.fail("to_json changed the fields it was given")


def _snapshot(state: State, where: _Where, *, view: bool) -> _Snapshot:
    over = state.is_terminal()
    seat = None if over else state.current_seat()
    return _Snapshot(
        ply=state.ply,
        seat=seat,
        outcome=state.outcome(),
        legal=copy.deepcopy(list(state.legal_actions())),
        moves=list(state.moves()),
        result=state.result_text(),
        # a finished game is drawn from seat 0's view (Game.board draws the last position)
        view=_view(state, where, 0 if seat is None else seat, round_trip=False) if view else None,
    )


def _compare(
    before: _Snapshot,
    after: _Snapshot,
    where: _Where,
    what: str,
    *,
    verb: str = "did not restore",
) -> None:
    for name in ("ply", "seat", "outcome", "legal", "moves", "result", "view"):
        old, new = getattr(before, name), getattr(after, name)
        if name == "view" and (old is None or new is None):
            continue  # a view not taken on one side
        if old != new:
            if name == "view":
                shown = _difference(json.loads(old), json.loads(new), "")
            else:
                shown = f"it was {_short(old)}, it is {_short(new)}"
            raise where.fail(f"{what} {verb} {_LABELS.get(name, name)}: {shown}")


def _difference(old: Any, new: Any, path: str) -> str:
    """The first place where two JSON values differ, for a message people can act on."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            if key not in new or key not in old:
                side = "is gone" if key not in new else "is new"
                return (
                    f"{path}/{key} {side} (was {_short(old.get(key))}, is {_short(new.get(key))})"
                )
            if old[key] != new[key]:
                return _difference(old[key], new[key], f"{path}/{key}")
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            if a != b:
                return _difference(a, b, f"{path}/{i}")
    return f"{path or '/'} was {_short(old)}, is {_short(new)}"


def _check_replay(
    game: Game, setup: Setup, start: Start | None, state: State, rng: random.Random, where: _Where
) -> None:
    """``state`` is back at its start after a playout's applies and undos. A new line played on
    it must look exactly like the same line played on a new state: what undo leaves behind
    (a cache of the line taken back) must never show."""
    fresh = game.new_state(setup, start)
    what = "a state taken back to its start by undo, then given the same actions as a new state,"

    def compare() -> None:
        _compare(
            _snapshot(fresh, where, view=True),
            _snapshot(state, where, view=True),
            where,
            what,
            verb="differs from the new state in",
        )

    compare()
    for _ in range(_REPLAY_STEPS):
        if state.is_terminal():
            return
        action = rng.choice(list(state.legal_actions()))
        fresh.apply(action)
        state.apply(action)
        compare()


# ---------------------------------------------------------------------------- judge
def _judge(state: State, where: _Where, answer: Any, *, lenient: bool = False) -> Any:
    call = f"judge({_short(answer, 80)}{', lenient=True' if lenient else ''})"
    try:
        verdict = state.judge(answer, lenient=lenient)
    except Exception as exc:
        raise where.fail(
            f"{call} raised {type(exc).__name__}: {exc} (it must return a Refusal)"
        ) from None
    if isinstance(verdict, Refusal):
        if verdict.kind not in REFUSAL_KINDS:
            raise where.fail(f"{call} refused with the unknown kind {verdict.kind!r}")
        if not isinstance(verdict.reason, str) or not verdict.reason.strip():
            raise where.fail(f"{call} refused without a reason")
        if not isinstance(verdict.decision, str) or not verdict.decision:
            raise where.fail(f"{call} refused with the decision word {verdict.decision!r}")
        if verdict.forfeit is not None and not isinstance(verdict.forfeit, str):
            raise where.fail(f"{call} refused with the forfeit reason {verdict.forfeit!r}")
    return verdict


def _check_judge(state: State, where: _Where, legal: list[Any], here: _Snapshot) -> None:
    for action in legal:
        verdict = _judge(state, where, action)
        if isinstance(verdict, Refusal) or verdict != action:
            raise where.fail(
                f"judge of the legal action {_short(action)} returned {_short(verdict)}"
            )
        text = state.action_text(action)
        if not isinstance(text, str) or not text:
            raise where.fail(f"action_text({_short(action)}) is {text!r}")
        kind = state.action_kind(action)
        if not isinstance(kind, str) or not kind:
            raise where.fail(f"action_kind({_short(action)}) is {kind!r}")
        notes = state.notes(action)
        if not isinstance(notes, list) or not all(isinstance(n, str) and n for n in notes):
            raise where.fail(f"notes({_short(action)}) is {_short(notes)}, not a list of words")
    for answer in MALFORMED_ANSWERS:
        verdict = _judge(state, where, copy.deepcopy(answer))
        if not isinstance(verdict, Refusal) or verdict.kind != "invalid_answer":
            raise where.fail(
                f"judge({_short(answer)}) returned {_short(verdict)}, not an invalid_answer Refusal"
            )
        lenient = _judge(state, where, copy.deepcopy(answer), lenient=True)
        unreadable = any(answer is x for x in _UNREADABLE)
        if unreadable and (not isinstance(lenient, Refusal) or lenient.kind != "invalid_answer"):
            raise where.fail(
                f"judge({_short(answer)}, lenient=True) returned {_short(lenient)}, "
                "not an invalid_answer Refusal"
            )
    after = _snapshot(state, where, view=True)
    _compare(here, after, where, "judge (which must not change the state)")


# ---------------------------------------------------------------------------- apply and undo
def _apply(
    state: State,
    where: _Where,
    action: Any,
    teams: list[int],
    here: _Snapshot | None,
) -> _Snapshot:
    """Apply ``action``, check what it did and return the new state's snapshot. With ``here``
    (the state's snapshot before, its view taken), also undo, compare, and apply again."""
    kind = state.action_kind(action)
    text = state.action_text(action)
    ply = state.ply
    state.apply(action)
    if kind == "move":
        if state.ply != ply + 1:
            raise where.fail(f"the move {text} took ply from {ply} to {state.ply}, not +1")
        last = state.moves()[-1:]
        if last != [text]:
            raise where.fail(f"after the move {text!r}, moves() ends {last!r}, not its text")
    elif state.ply != ply:
        raise where.fail(f"the {kind} action {text} took ply from {ply} to {state.ply}")
    if state.is_terminal():
        _check_terminal(state, where, teams)
    if here is None:
        return _snapshot(state, where, view=False)
    after = _snapshot(state, where, view=True)
    state.undo()
    _compare(here, _snapshot(state, where, view=True), where, f"undo of the {kind} {text}")
    state.apply(action)
    again = _snapshot(state, where, view=True)
    _compare(after, again, where, f"the {kind} {text} applied again after its undo")
    return again


def _check_apply_undo(
    state: State, where: _Where, action: Any, teams: list[int], here: _Snapshot
) -> None:
    text = state.action_text(action)
    _apply(state, where, action, teams, here)
    state.undo()
    _compare(here, _snapshot(state, where, view=True), where, f"undo of {text}")


def _check_forfeits(state: State, where: _Where, teams: list[int], here: _Snapshot) -> None:
    """Forfeits, each taken back: the seat to move's (the referee's: a crash, a flag, an
    abandoned game), then every other seat's (the API ends the game against the seat it is
    given, whoever is to move: a player may leave a four-seat game out of turn)."""
    to_move = state.current_seat()
    trials = [(to_move, "crash"), (to_move, "timeout"), (to_move, "abandoned")]
    trials += [(seat, "crash") for seat in range(state.seats) if seat != to_move]
    for seat, termination in trials:
        team = teams[seat]
        reason = f"conformance {termination} of seat {seat}"
        what = f"forfeit({seat}, {termination!r}, ...) with seat {to_move} to move"
        state.forfeit(seat, termination, reason)
        out = state.outcome()
        if out is None or not state.is_terminal():
            raise where.fail(f"{what} did not end the game")
        if out.termination != termination:
            raise where.fail(f"{what} ended the game with termination {out.termination!r}")
        if termination == "abandoned":
            if not out.unfinished or out.winner is not None:
                raise where.fail(f"{what} must leave the game unfinished, not {out!r}")
        elif out.unfinished:
            raise where.fail(f"{what} left the game unfinished: {out!r}")
        elif out.winner == team:
            raise where.fail(f"{what}: the forfeiting seat's own team {team} wins: {out!r}")
        elif out.winner is not None and reason not in out.reason:
            raise where.fail(f"{what}: the outcome's reason {out.reason!r} leaves out {reason!r}")
        _check_terminal(state, where, teams)
        state.undo()
        _compare(here, _snapshot(state, where, view=True), where, f"undo of {what}")


# ---------------------------------------------------------------------------- the end
def _check_terminal(state: State, where: _Where, teams: list[int]) -> None:
    out = state.outcome()
    if not isinstance(out, Outcome) or not state.is_terminal():
        raise where.fail(f"at the end, outcome() is {_short(out)}, is_terminal() False")
    if not isinstance(out.termination, str) or not out.termination.strip():
        raise where.fail(f"the outcome's termination is {out.termination!r}, not a word")
    if not isinstance(out.reason, str):
        raise where.fail(f"the outcome's reason is {out.reason!r}, not a string")
    if out.winner is not None and out.winner not in teams:
        raise where.fail(f"the winner {out.winner!r} is not a team of the game: {teams}")
    legal = list(state.legal_actions())
    if legal:
        raise where.fail(f"legal_actions() is {_short(legal)} in a finished game ({out!r})")
    returns = state.returns()
    if not isinstance(returns, list) or len(returns) != state.seats:
        raise where.fail(f"returns() is {_short(returns)}, not one value per seat")
    for seat, value in enumerate(returns):
        if value not in _VALID_RETURNS:
            raise where.fail(f"returns()[{seat}] is {value!r}, not 0, 0.5 or 1")
        expected = 0.5 if out.winner is None else float(teams[seat] == out.winner)
        if value != expected:
            raise where.fail(
                f"returns() is {returns} for {out!r}: seat {seat} of team {teams[seat]} "
                f"should have {expected}"
            )
    result = state.result_text()
    if not isinstance(result, str) or not result:
        raise where.fail(f"result_text() is {result!r} at the end")
    if (result == "*") != out.unfinished:
        raise where.fail(f"result_text() is {result!r} for {out!r}")
    _check_moves(state, where)
    _view(state, where, 0)  # the last position is shown (Game.board) and logged


__all__ = ["MALFORMED_ANSWERS", "SetupLike", "check_game"]
