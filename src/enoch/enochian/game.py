"""Enochian chess as a game of the arena (``--variant enochian``).

The rules engine (:mod:`enoch.enochian.state`) already has the OpenSpiel shape; this module
puts it behind the game API: seats are the player numbers of the state (two players, one team
each, or four, one army each), the state JSON is the Enochian protocol's
(``docs/enochian-protocol.md``), and an exchange of prisoners is an action after which the
offer's addressee answers. Everything else — clocks, retries, forfeits, schedules, records,
logs, the human seat — is the arena's, the same as for chess.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from enoch.enochian.geometry import ARMY_INDEX, ARMY_NAMES, SQUARE_INDEX, TEAM_NAMES
from enoch.enochian.protocol import answer_to_action, parse_answer, state_to_json
from enoch.enochian.spec import DIRECTIONS, RuleOptions, available_arrays, find_array
from enoch.enochian.state import (
    RESIGN,
    SPECIAL_NAMES,
    WITHDRAW,
    Divination,
    new_game,
)
from enoch.enochian.state import Outcome as RulesOutcome
from enoch.enochian.state import State as RulesState
from enoch.errors import IllegalMoveError, InputError, quote
from enoch.game.api import Game, Outcome, Refusal, Setup, Start, State
from enoch.game.options import OptionSpec

_REASONS = {
    "kings_captured": "both kings of the {loser} are captured",
    "bare_kings": "bare kings: neither team can win",
    "four_bare_kings": "four bare kings",
    "move_limit": "the referee's move limit",
    "resignation": "the {loser} resign",
}
_ANSWER_KEYS = ("from", "to", "promotion", "kind")


class EnochianState(State):
    """A game of the rules engine, seen through the game API."""

    def __init__(self, game: EnochianGame, st: RulesState) -> None:
        self.game = game
        self.st = st
        self.seats = st.config.players
        self._teams = [
            next(a % 2 for a in range(4) if st.config.controllers[a] == p)
            for p in range(self.seats)
        ]
        self._forfeit: tuple[int, str] | None = None  # (army, reason) of a forfeit
        self._forfeit_depth = -1

    # ------------------------------------------------------------------ queries
    @property
    def ply(self) -> int:
        return self.st.ply

    def team_of(self, seat: int) -> int:
        return self._teams[seat]

    def current_seat(self) -> int:
        return self.st.current_player()

    def legal_actions(self) -> list[Any]:
        return list(self.st.legal_actions())

    def outcome(self) -> Outcome | None:
        out = self.st.outcome
        if out is None:
            return None
        if out.reason == "abandoned":
            detail = self._forfeit[1] if self._forfeit else "abandoned"
            return Outcome("abandoned", None, detail, unfinished=True)
        if self._forfeit is not None:
            army, detail = self._forfeit
            return Outcome(out.reason, out.winner, f"{ARMY_NAMES[army]} forfeits: {detail}")
        loser = "" if out.winner is None else TEAM_NAMES[1 - out.winner]
        text = _REASONS.get(out.reason, out.reason.replace("_", " ")).format(loser=loser)
        if out.winner is not None:
            text = f"{TEAM_NAMES[out.winner]} win: {text}"
        return Outcome(out.reason, out.winner, text)

    def result_text(self) -> str:
        out = self.outcome()
        if out is None or out.unfinished:
            return "*"
        return "draw" if out.winner is None else f"{TEAM_NAMES[out.winner]} win"

    def moves(self) -> list[str]:
        return [e["move"] for e in self.st.log if "move" in e]

    def summary(self) -> dict[str, Any]:
        cfg = self.st.config
        return {
            "array": cfg.array_id,
            "direction": cfg.direction,
            "players": cfg.players,
            "teams": [TEAM_NAMES[t] for t in self._teams],
            "verdict": self.st.verdict,
        }

    def action_text(self, action: Any) -> str:
        return str(self.st.move_str(action))

    def action_kind(self, action: Any) -> str:
        return SPECIAL_NAMES.get(action, "move")

    def record(self, names: Sequence[str], result: Any) -> str | None:
        from enoch.enochian.referee import format_record

        forfeit = ""
        if self._forfeit is not None:
            army, detail = self._forfeit
            seat = self.st.config.controllers[self.st.commander[army]]
            forfeit = f"{ARMY_NAMES[army]} ({names[seat]}): {detail}"
        return format_record(self.st, names, forfeit)

    # ------------------------------------------------------------------ for language models
    def views(self, seat: int, names: Sequence[str]) -> dict[str, str]:
        """``board`` (a text grid), ``armies`` (who commands each and its men), ``teams``,
        ``frozen`` (frozen and withdrawn armies, prisoners), ``die`` (divination: this turn's
        roll and what it allows), ``legal`` (every legal answer now, as JSON)."""
        out: dict[str, str] = {}
        for name in names:
            make = _VIEWS.get(name)
            if make is not None:
                out[name] = make(self, seat)
        return out

    # ------------------------------------------------------------------ agents' side
    def to_json(self, seat: int, fields: Mapping[str, Any] | None = None) -> dict[str, Any]:
        out = state_to_json(self.st)
        if fields:
            out.update(fields)
        return out

    def judge(self, answer: Any, *, lenient: bool = False) -> Any:
        st = self.st
        if isinstance(answer, int) and not isinstance(answer, bool):
            if answer == WITHDRAW and st.pending is not None:
                return Refusal(
                    "illegal_move", "cannot withdraw while an exchange offer awaits an answer"
                )
            if answer in (RESIGN, WITHDRAW) or answer in st.legal_actions():
                return answer
            return Refusal("illegal_move", f"{quote(answer)} is not a legal action now")
        if lenient and isinstance(answer, dict) and "action" not in answer:
            answer = {k: v for k, v in answer.items() if k in _ANSWER_KEYS}
            answer.setdefault("promotion", None)
            if isinstance(answer["promotion"], str):
                answer["promotion"] = answer["promotion"].strip().upper()
        try:
            data = parse_answer(answer)
        except InputError as exc:
            return Refusal("invalid_answer", str(exc))
        try:
            return answer_to_action(st, data)
        except IllegalMoveError as exc:
            return Refusal("illegal_move", str(exc))
        except InputError as exc:
            return Refusal("invalid_answer", str(exc))

    # ------------------------------------------------------------------ changes
    def apply(self, action: Any) -> None:
        self.st.make(action)

    def undo(self) -> None:
        if self._forfeit is not None and self._forfeit_depth == len(self.st._stack):
            self._forfeit = None
        self.st.undo()

    def forfeit(self, seat: int, termination: str, reason: str) -> None:
        st = self.st
        army = st.deciding_army
        if st.config.controllers[st.commander[army]] != seat:
            # the seat blamed is not the one to act: name one of its own armies
            army = next(
                (a for a in range(4) if st.config.controllers[st.commander[a]] == seat),
                next(a for a in range(4) if st.config.controllers[a] == seat),
            )
        st._stack.append(st._snapshot())
        self._forfeit_depth = len(st._stack)
        self._forfeit = (army, reason)
        if termination == "abandoned":
            st.outcome = RulesOutcome(None, "abandoned")
        else:
            st.outcome = RulesOutcome(1 - self.team_of(seat), termination)


def _view_board(state: EnochianState, seat: int) -> str:
    from enoch.enochian.render import board_text

    return (
        board_text(state.st).plain
        + "letters: K king, Q queen, B bishop, N knight, R rook, P pawn\n"
    )


def _view_armies(state: EnochianState, seat: int) -> str:
    from enoch.enochian.geometry import KIND_LETTERS, SQUARE_NAMES

    st = state.st
    lines = []
    for a in st.config.order:
        controller = st.config.controllers[st.commander[a]]
        who = "you" if controller == seat else f"player {controller}"
        extra = ""
        if st.commander[a] != a:
            extra = f", commanded by {ARMY_NAMES[st.commander[a]]}"
        if st.frozen >> a & 1:
            extra += ", frozen"
        men = [f"{KIND_LETTERS[k]}{SQUARE_NAMES[s]}" for s, army, k in st.men() if army == a]
        lines.append(
            f"{ARMY_NAMES[a]} ({TEAM_NAMES[a % 2]}, moved by {who}{extra}): "
            + (" ".join(men) or "no men")
        )
    lines.append(
        f"to move: {ARMY_NAMES[st.army_to_move]}; to answer now: {ARMY_NAMES[st.deciding_army]}"
    )
    return "\n".join(lines)


def _view_teams(state: EnochianState, seat: int) -> str:
    st = state.st
    mine = TEAM_NAMES[state.team_of(seat)]
    teams = []
    for t in (0, 1):
        armies = [ARMY_NAMES[a] for a in range(4) if a % 2 == t]
        teams.append(f"{TEAM_NAMES[t]}: {' and '.join(armies)}")
    controllers = st.config.controllers
    seats = ", ".join(
        f"player {p}: {' and '.join(ARMY_NAMES[a] for a in range(4) if controllers[a] == p)}"
        for p in range(state.seats)
    )
    return f"{'; '.join(teams)}. You are player {seat}, of the {mine}. Seats: {seats}."


def _view_frozen(state: EnochianState, seat: int) -> str:
    st = state.st
    frozen = [ARMY_NAMES[a] for a in range(4) if st.frozen >> a & 1]
    withdrawn = [ARMY_NAMES[a] for a in range(4) if st.withdrawn >> a & 1]
    prisoners = [
        f"{ARMY_NAMES[a]}'s king is held by {ARMY_NAMES[c]}"
        for a, c in enumerate(st.captured_by)
        if c >= 0
    ]
    parts = [
        "frozen armies: " + (", ".join(frozen) or "none"),
        "withdrawn: " + (", ".join(withdrawn) or "none"),
        "prisoners: " + ("; ".join(prisoners) or "none"),
    ]
    return "\n".join(parts)


def _view_die(state: EnochianState, seat: int) -> str:
    st = state.st
    if st.config.divination is None:
        return "no divination in this game: no die"
    if not st.die:
        return "the die has not been rolled for this turn"
    return f"the die shows {st.die}: {st.config.die_table[st.die - 1]}"


def _view_legal(state: EnochianState, seat: int) -> str:
    import json

    from enoch.enochian.protocol import move_to_json

    st = state.st
    answers = [json.dumps(move_to_json(st, m)) for m in st.legal_actions()]
    return "\n".join(answers) if answers else "(none)"


_VIEWS = {
    "board": _view_board,
    "armies": _view_armies,
    "teams": _view_teams,
    "frozen": _view_frozen,
    "die": _view_die,
    "legal": _view_legal,
}


def _armies() -> tuple[str, ...]:
    return tuple(ARMY_NAMES)


class EnochianGame(Game):
    """The four-army Golden Dawn game, Zalewski's rules by default."""

    name = "enochian"
    title = "Enochian chess"
    record_format = "text"
    rule_refusals = 2
    seats_option = "players"
    default_max_plies = 400
    view_names = ("board", "armies", "teams", "frozen", "die", "legal")
    default_views = ("board", "armies", "teams", "frozen", "die", "legal")
    options = (
        OptionSpec(
            "array",
            "str",
            "earth_of_fire",
            "the starting array (enoch enochian arrays); for matches a comma-separated list "
            "rotated game by game, or all",
        ),
        OptionSpec("direction", "str", "deosil", "the turn order", choices=DIRECTIONS),
        OptionSpec("players", "int", 2, "2 (one team each) or 4 (one army each)", choices=(2, 4)),
        OptionSpec("divination", "bool", False, "divination mode: a seeded die names the man"),
        OptionSpec("querent", "str", "air", "divination: the querent's army", choices=_armies()),
        OptionSpec("ptah", "str", "d5", "divination: the Ptah square"),
        OptionSpec("seed", "int", 0, "divination: the die's seed", minimum=0),
        OptionSpec(
            "ally_king_capture", "bool", True, "four players: an army may take its ally's king"
        ),
        OptionSpec(
            "throne_seizure_revives_frozen",
            "bool",
            False,
            "seizing a throne frees the frozen army it holds",
        ),
        OptionSpec(
            "allow_duplicate_patron_promotion",
            "bool",
            False,
            "a pawn may promote to a man its army still has",
        ),
        OptionSpec(
            "seed_system_labels",
            "bool",
            False,
            "label queens and bishops by the seed note's systems",
        ),
        OptionSpec(
            "divination_rerolls", "int", 0, "divination: rerolls when no man can move", minimum=0
        ),
        OptionSpec(
            "one_allows_pawn_freely",
            "bool",
            False,
            "divination: a roll of one lets any pawn move",
        ),
        OptionSpec(
            "divination_die",
            "str",
            "zalewski",
            "divination: the die's table",
            choices=("zalewski", "original_gd"),
        ),
    )
    builtins = {
        "random": "enoch.enochian.agents:RandomAgent",
        "greedy": "enoch.enochian.agents:GreedyAgent",
        "search": "enoch.enochian.agents:SearchAgent",
        # the names of earlier versions, kept so that old commands still run
        "enochian-random": "enoch.enochian.agents:RandomAgent",
        "enochian-greedy": "enoch.enochian.agents:GreedyAgent",
        "enochian-search": "enoch.enochian.agents:SearchAgent",
    }

    def seats(self, setup: Setup) -> int:
        return int(setup.options.get("players") or 2)

    def rulebook(self) -> str:
        from importlib.resources import files

        return files("enoch.enochian").joinpath("rulebook.md").read_text(encoding="utf-8")

    def answer_schema(self) -> dict[str, Any] | None:
        from enoch.enochian.protocol import schema

        return dict(schema("answer"))

    def _rules(self, setup: Setup) -> dict[str, Any]:
        rule_names = RuleOptions().as_dict()
        return {k: v for k, v in setup.options.items() if k in rule_names}

    def _divination(self, setup: Setup) -> Divination | None:
        o = setup.options
        if not o.get("divination"):
            return None
        ptah = str(o.get("ptah") or "d5")
        if ptah not in SQUARE_INDEX:
            raise InputError(f"option ptah of enochian: not a square: {ptah[:20]!r}")
        return Divination(ARMY_INDEX[o.get("querent") or "air"], SQUARE_INDEX[ptah], o["seed"])

    def new_state(self, setup: Setup, start: Start | None = None) -> EnochianState:
        o = setup.options
        array = start.data if start is not None else self.starts(setup)[0].data
        st = new_game(
            array,
            o.get("direction") or "deosil",
            self._rules(setup),
            players=self.seats(setup),
            divination=self._divination(setup),
            max_plies=setup.max_plies,
        )
        return EnochianState(self, st)

    def state_from(self, st: RulesState) -> EnochianState:
        """A game from a ready rules state (a position from a test or a file)."""
        return EnochianState(self, st)

    def starts(self, setup: Setup, spec: str | None = None) -> list[Start]:
        text = spec or str(setup.options.get("array") or "earth_of_fire")
        if text.strip() == "all":
            return [Start(a.id, a.id) for a in available_arrays()]
        out = []
        for name in text.split(","):
            if not name.strip():
                raise InputError(f"option array of enochian: empty name in {text[:60]!r}")
            array = find_array(name.strip())
            out.append(Start(array.id, array.id))
        return out

    def builtin_player(self, label: str, agent: Any) -> Any:
        if getattr(agent, "answer_state", None) is None:
            return None
        from enoch.enochian.players import StatePlayer

        return StatePlayer(label, agent)

    def human(self) -> Any:
        from enoch.enochian.human import TerminalPlayer

        return TerminalPlayer()

    def board(self, state: State, colour: bool) -> Any:
        from enoch.enochian.render import board_text, status_line

        assert isinstance(state, EnochianState)
        from rich.console import Group
        from rich.text import Text

        return Group(board_text(state.st), Text(status_line(state.st)))


def rules_state(state: State) -> RulesState:
    """The rules engine's state behind an arena state (for Enochian displays)."""
    assert isinstance(state, EnochianState)
    return state.st


__all__ = ["EnochianGame", "EnochianState", "rules_state"]
